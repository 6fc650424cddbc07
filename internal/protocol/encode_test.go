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

// Encode agrees with the stored types on what a model, a careless user or an
// attacker puts in a call: any text in its strings (invalid UTF-8, HTML,
// control and line-separator characters) and any bytes as its raw JSON,
// which either encodes alike or fails alike.
func FuzzEncodeIsStoredAndSent(f *testing.F) {
	f.Add("r1", `{"q":"<a&b>"}`, "x\"y\u2028", "dev<1>", true)
	f.Add("\xff\xfe", `{`, "\x00\x1f", "", false)
	f.Add("", `null`, "", "\xed\xa0\x80", true)
	f.Fuzz(func(t *testing.T, id, raw, text, device string, audited bool) {
		at := time.Date(2026, 12, 6, 22, 0, 0, 0, time.UTC)
		r := RTC{ID: id, ToolName: text, Arguments: json.RawMessage(raw), Output: json.RawMessage(raw), Error: text,
			Decision: &Decision{Decision: DecisionAllow, Standing: !audited}, CreatedAt: at}
		if audited {
			r.Audit = &AuditState{DeviceID: device, WorkMode: text, StartedAt: &at}
		}
		sent, stored, err := r.Encode()
		wantSent, errSent := json.Marshal(rtcSent{rtcPlain: (*rtcPlain)(&r), Approved: r.Approved()})
		wantStored, errStored := json.Marshal(rtcStored{rtcPlain: (*rtcPlain)(&r), Approved: r.Approved(), Audit: r.Audit})
		if (err != nil) != (errSent != nil || errStored != nil) {
			t.Fatalf("Encode: %v; the stored types: %v, %v", err, errSent, errStored)
		}
		if err == nil && (!bytes.Equal(sent, wantSent) || !bytes.Equal(stored, wantStored)) {
			t.Fatalf("sent %s, want %s; stored %s, want %s", sent, wantSent, stored, wantStored)
		}
		tr := Turn{ID: id, TraceParent: text, Checkpoint: &TurnCheckpoint{ExpiresAt: at}}
		if !audited {
			tr.Checkpoint = nil
		}
		sent, stored, err = tr.Encode()
		wantSent, _ = json.Marshal(&tr)
		wantStored, _ = json.Marshal(turnStored{turnPlain: (*turnPlain)(&tr), Checkpoint: tr.Checkpoint})
		if err != nil || !bytes.Equal(sent, wantSent) || !bytes.Equal(stored, wantStored) {
			t.Fatalf("turn: sent %s, want %s; stored %s, want %s (%v)", sent, wantSent, stored, wantStored, err)
		}
	})
}
