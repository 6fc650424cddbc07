package agent

import (
	"encoding/json"
	"testing"
	"unicode/utf8"

	"github.com/rtcagent/rtcagent/internal/protocol"
)

// FuzzResultText: any tool result from the browser becomes bounded text for the
// model; valid UTF-8 in gives valid UTF-8 out.
func FuzzResultText(f *testing.F) {
	for _, s := range []string{`"text"`, `{"a":[1,2]}`, `null`, `"\u00e9\u00e9"`, `{`, ``, `"` + string(make([]byte, 300)) + `"`} {
		f.Add(s, "error text", 64)
	}
	f.Fuzz(func(t *testing.T, output, errText string, limit int) {
		if limit < 0 || limit > 1<<20 {
			return
		}
		for _, st := range []string{protocol.RTCCompleted, protocol.RTCFailed, protocol.RTCRejected} {
			r := &protocol.RTC{Status: st, Output: json.RawMessage(output), Error: errText}
			got := ResultText(r, limit)
			if limit >= 64 && len(got) > limit+len("[Tool Rejected] ") {
				t.Fatalf("%s: %d bytes over limit %d", st, len(got), limit)
			}
			if utf8.ValidString(output) && utf8.ValidString(errText) && !utf8.ValidString(got) {
				t.Fatalf("%s: invalid UTF-8 out", st)
			}
		}
	})
}
