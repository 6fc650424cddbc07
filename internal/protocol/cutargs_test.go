package protocol

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestCutArgs: arguments over a limit are kept as a JSON string of their prefix
// and the note.
func TestCutArgs(t *testing.T) {
	raw := []byte(`{"path":"/a","content":"` + strings.Repeat("x", 1<<20) + `"}`)
	got := CutArgs(raw, 64)
	var s string
	if err := json.Unmarshal(got, &s); err != nil {
		t.Fatalf("cut arguments are not a JSON string: %v", err)
	}
	if !strings.HasPrefix(s, `{"path":"/a","content":"xxx`) || !strings.HasSuffix(s, CutNote(len(raw)-64)) || len(got) > 200 {
		t.Fatalf("cut arguments: %s", got)
	}
}
