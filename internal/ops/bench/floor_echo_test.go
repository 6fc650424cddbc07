package bench

import (
	"io"
	"strings"
	"testing"
)

// `bench echo` reads one job of at most 1 MiB: what is not one, or is
// longer, is refused with an error that says so.
func TestEchoRefusesABadJob(t *testing.T) {
	for name, in := range map[string]io.Reader{
		"not JSON":  strings.NewReader("echo, please"),
		"empty":     strings.NewReader(""),
		"too large": io.MultiReader(strings.NewReader(`{"URL": "`), strings.NewReader(strings.Repeat("a", 2<<20))),
	} {
		if err := runEcho(in); err == nil || !strings.Contains(err.Error(), "read job") {
			t.Errorf("%s: %v", name, err)
		}
	}
}
