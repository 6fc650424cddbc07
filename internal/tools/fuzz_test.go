package tools

import (
	"encoding/json"
	"testing"

	"github.com/rtcagent/rtcagent/internal/protocol"
)

// FuzzCheckCall: arguments from the model never panic the check, and accepted
// arguments are always a JSON object within the limit.
func FuzzCheckCall(f *testing.F) {
	lim := protocol.Limits{}.WithDefaults()
	set := NewSet(nil)
	for _, s := range []string{`{"path":"/a"}`, ``, `{`, `[]`, `null`, `{"path":1}`, "{\"path\":\"\\u0000\"}", `{"questions":[{}]}`} {
		f.Add("read", s)
		f.Add("askUser", s)
	}
	f.Fuzz(func(t *testing.T, name, args string) {
		_, err := set.CheckCall(name, json.RawMessage(args), lim)
		if err == nil {
			var obj map[string]json.RawMessage
			if args != "" && (json.Unmarshal([]byte(args), &obj) != nil || obj == nil) {
				t.Fatalf("accepted %s(%q)", name, args)
			}
		}
	})
}
