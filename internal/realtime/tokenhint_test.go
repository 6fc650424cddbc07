package realtime

import (
	"strings"
	"testing"
)

// A rejected token's log line says what its shape suggests, and never holds
// the token.
func TestTokenHint(t *testing.T) {
	for tok, want := range map[string]string{
		"":                         "no token",
		`{"token":"eyJ.a.b"}`:      "JSON",
		`"eyJhbGciOi.e30.sig"`:     "JSON",
		"not-a-jwt":                "three dot-separated parts",
		"eyJhbGciOi.eyJzdWIiOi.sg": "does not accept",
	} {
		got := tokenHint(tok)
		if !strings.Contains(got, want) {
			t.Errorf("%q: %q, want it to say %q", tok, got, want)
		}
		if tok != "" && strings.Contains(got, tok) {
			t.Errorf("the hint holds the token: %q", got)
		}
	}
}
