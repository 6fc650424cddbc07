package protocol

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// TestGoldenFixtures decodes each fixture into its Go type and encodes it again:
// the result must equal the fixture, so the Go encoding and the documented shape
// (also read by the TypeScript tests) cannot drift apart.
func TestGoldenFixtures(t *testing.T) {
	cases := map[string]func() any{
		"rtc_update.json":             func() any { return &Update{} },
		"message_update.json":         func() any { return &Update{} },
		"turn_update.json":            func() any { return &Update{} },
		"session_update.json":         func() any { return &Update{} },
		"delta.json":                  func() any { return &Delta{} },
		"message_send.json":           func() any { return &MessageSendRequest{} },
		"submit_result.json":          func() any { return &RTCSubmitResultRequest{} },
		"error.json":                  func() any { return &Error{} },
		"update_list.json":            func() any { return &UpdateListResult{} },
		"summary_message.json":        func() any { return &Update{} },
		"compact_turn.json":           func() any { return &Update{} },
		"retry_turn.json":             func() any { return &Update{} },
		"session_compact.json":        func() any { return &SessionCompactRequest{} },
		"turn_retry.json":             func() any { return &TurnRetryRequest{} },
		"message_send_context.json":   func() any { return &MessageSendRequest{} },
		"session_approvals.json":      func() any { return &Update{} },
		"rtc_decision.json":           func() any { return &Update{} },
		"update_status_approval.json": func() any { return &RTCUpdateStatusRequest{} },
	}
	entity := map[string]func() any{
		"rtc.updated": func() any { return &RTC{} }, "message.updated": func() any { return &Message{} },
		"turn.updated": func() any { return &Turn{} }, "session.updated": func() any { return &Session{} },
		"turn.created": func() any { return &Turn{} }, "message.created": func() any { return &Message{} },
	}
	files, _ := filepath.Glob("testdata/*.json")
	if len(files) != len(cases) {
		t.Fatalf("%d fixtures, %d cases", len(files), len(cases))
	}
	for name, mk := range cases {
		raw, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			t.Fatal(err)
		}
		v := mk()
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.DisallowUnknownFields()
		if err := dec.Decode(v); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if u, ok := v.(*Update); ok {
			for i, c := range u.Changes {
				e := entity[c.Type]()
				dec := json.NewDecoder(bytes.NewReader(c.Data))
				dec.DisallowUnknownFields()
				if err := dec.Decode(e); err != nil {
					t.Fatalf("%s data: %v", name, err)
				}
				u.Changes[i].Data, _ = json.Marshal(e)
			}
		}
		if got, want := canonical(t, mustJSON(v)), canonical(t, raw); got != want {
			t.Errorf("%s round trip:\n got %s\nwant %s", name, got, want)
		}
	}
}

func mustJSON(v any) []byte {
	b, _ := json.Marshal(v)
	return b
}

func canonical(t *testing.T, raw []byte) string {
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatal(err)
	}
	return string(mustJSON(v))
}

func TestRTCTransitions(t *testing.T) {
	allowed := [][2]string{
		{RTCQueued, RTCPending}, {RTCPending, RTCSent}, {RTCPending, RTCExecuting}, {RTCSent, RTCExecuting},
		{RTCPending, RTCCompleted}, {RTCExecuting, RTCFailed}, {RTCSent, RTCRejected}, {RTCQueued, RTCFailed},
	}
	refused := [][2]string{
		{RTCExecuting, RTCSent}, {RTCSent, RTCPending}, {RTCCompleted, RTCFailed}, {RTCTimeout, RTCCompleted},
		{RTCRejected, RTCExecuting}, {RTCPending, RTCPending}, {RTCPending, "bogus"},
	}
	for _, p := range allowed {
		if !RTCTransitionAllowed(p[0], p[1]) {
			t.Errorf("%s → %s refused", p[0], p[1])
		}
	}
	for _, p := range refused {
		if RTCTransitionAllowed(p[0], p[1]) {
			t.Errorf("%s → %s allowed", p[0], p[1])
		}
	}
}

func TestErrorCodesRoundTrip(t *testing.T) {
	for code, v := range codeTable {
		if CodeFromRPC(RPCCode(code)) != code || HTTPStatus(code) != v[0] || v[1] < 400 || v[1] > 1999 {
			t.Errorf("code %s maps badly", code)
		}
	}
}
