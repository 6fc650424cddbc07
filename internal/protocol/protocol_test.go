package protocol

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
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

// TestRTCApprovedIsReadFromDecision: consent is the decision alone; "approved"
// is still written, sent and stored, for nodes and clients of earlier
// releases, and read from the decision.
func TestRTCApprovedIsReadFromDecision(t *testing.T) {
	at := time.Date(2026, 12, 5, 0, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		name string
		d    *Decision
		want bool
	}{
		{"asked and allowed", &Decision{Decision: DecisionAllow, Scope: ScopeOnce, At: at}, true},
		{"allowed for the chat when asked", &Decision{Decision: DecisionAllow, Scope: ScopeSession, At: at}, true},
		{"a standing approval", &Decision{Decision: DecisionAllow, Scope: ScopeSession, Standing: true, At: at}, false},
		{"denied", &Decision{Decision: DecisionDeny, Scope: ScopeOnce, At: at}, false},
		{"not asked", nil, false},
	} {
		r := RTC{ID: "r1", Status: RTCSent, Decision: c.d, Audit: &AuditState{}}
		if r.Approved() != c.want {
			t.Errorf("%s: Approved() = %v", c.name, r.Approved())
		}
		sent, err := json.Marshal(&r)
		if err != nil {
			t.Fatal(err)
		}
		stored, err := r.StoredJSON()
		if err != nil {
			t.Fatal(err)
		}
		for what, b := range map[string][]byte{"sent": sent, "stored": stored} {
			var v struct {
				Approved bool      `json:"approved"`
				Decision *Decision `json:"decision"`
			}
			if err := json.Unmarshal(b, &v); err != nil {
				t.Fatal(err)
			}
			if v.Approved != c.want {
				t.Errorf("%s, %s: approved %v in %s", c.name, what, v.Approved, b)
			}
		}
		if strings.Contains(string(sent), "audit_state") {
			t.Errorf("%s: the audit state is sent: %s", c.name, sent)
		}
		var back RTC
		if err := json.Unmarshal(stored, &back); err != nil || back.Approved() != c.want || back.Audit == nil {
			t.Errorf("%s: read back %+v, %v", c.name, back, err)
		}
	}
}
