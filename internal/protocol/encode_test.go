package protocol

import (
	"bytes"
	"encoding/json"
	"testing"
	"time"
)

// Encode writes what the stored types write, from one encoding of the sent
// form: checked on values with and without the member it adds.
func TestEncodeIsStoredAndSent(t *testing.T) {
	at := time.Date(2026, 12, 6, 22, 0, 0, 123456789, time.UTC)
	rtcs := []RTC{
		{},
		{ID: "r1", UserID: "u", Arguments: json.RawMessage(`{"q":"<a&b>"}`), Status: RTCPending, CreatedAt: at},
		{ID: "r2", Decision: &Decision{Decision: DecisionAllow}, Output: json.RawMessage(`"ok \u2028"`), Error: "x\"y",
			Audit: &AuditState{DeviceID: "d<1>", WorkMode: "auto", DeliveredAt: &at, Decision: AuditDecision{By: "user"}}},
		{ID: "r3", Decision: &Decision{Decision: DecisionAllow, Standing: true}, Audit: &AuditState{}},
	}
	for _, r := range rtcs {
		sent, stored, err := r.Encode()
		if err != nil {
			t.Fatal(err)
		}
		wantSent, _ := json.Marshal(rtcSent{rtcPlain: (*rtcPlain)(&r), Approved: r.Approved()})
		wantStored, _ := json.Marshal(rtcStored{rtcPlain: (*rtcPlain)(&r), Approved: r.Approved(), Audit: r.Audit})
		if !bytes.Equal(sent, wantSent) || !bytes.Equal(stored, wantStored) {
			t.Errorf("rtc %q:\nsent   %s\nwant   %s\nstored %s\nwant   %s", r.ID, sent, wantSent, stored, wantStored)
		}
		var back RTC
		if err := json.Unmarshal(stored, &back); err != nil || (r.Audit == nil) != (back.Audit == nil) {
			t.Errorf("rtc %q: stored form reads back with audit %v (%v)", r.ID, back.Audit, err)
		}
	}
	turns := []Turn{
		{},
		{ID: "t1", Status: TurnRunning, TraceParent: "00-<x>", CreatedAt: at},
		{ID: "t2", Status: TurnWaiting, Checkpoint: &TurnCheckpoint{ExpiresAt: at}},
	}
	for _, tr := range turns {
		sent, stored, err := tr.Encode()
		if err != nil {
			t.Fatal(err)
		}
		wantSent, _ := json.Marshal(&tr)
		wantStored, _ := json.Marshal(turnStored{turnPlain: (*turnPlain)(&tr), Checkpoint: tr.Checkpoint})
		if !bytes.Equal(sent, wantSent) || !bytes.Equal(stored, wantStored) {
			t.Errorf("turn %q:\nsent   %s\nwant   %s\nstored %s\nwant   %s", tr.ID, sent, wantSent, stored, wantStored)
		}
	}
	one := 1
	if _, err := withMember([]byte(`[1]`), "x", &one); err == nil {
		t.Error("withMember took an array")
	}
	if got, _ := withMember([]byte(`{}`), "x", &one); string(got) != `{"x":1}` {
		t.Errorf("withMember of {}: %s", got)
	}
}
