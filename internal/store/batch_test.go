package store

import (
	"encoding/json"
	"reflect"
	"testing"
	"time"

	"github.com/rtcagent/rtcagent/internal/protocol"
)

// A change carries, besides its encoding, a copy of the entity it was encoded
// from: later changes of the caller's entity do not reach it, and what it
// holds of the sent fields is what its data decodes to. The entity's latest
// change in the update replaces both.
func TestChangeCarriesACopyOfItsEntity(t *testing.T) {
	var b Batch
	r := &protocol.RTC{ID: "r1", UserID: "u", Status: protocol.RTCPending, Arguments: json.RawMessage(`{"p":"/a"}`),
		Audit: &protocol.AuditState{WorkMode: "edit"}}
	u, _, err := b.Add("u", "e", 1, protocol.UpdRTCUpdated, r)
	if err != nil {
		t.Fatal(err)
	}
	v, ok := u.Changes[0].Value.(*protocol.RTC)
	if !ok || v == r {
		t.Fatalf("the change's value %T is not a copy of the entity", u.Changes[0].Value)
	}
	r.Status, r.Audit.WorkMode = protocol.RTCExecuting, "plan"
	if v.Status != protocol.RTCPending || v.Audit.WorkMode != "edit" {
		t.Fatalf("a later change of the entity reached the change's copy: %+v", v)
	}
	var decoded protocol.RTC
	if err := json.Unmarshal(u.Changes[0].Data, &decoded); err != nil {
		t.Fatal(err)
	}
	sent := *v
	sent.Audit = nil // kept by the store, not sent
	if !reflect.DeepEqual(&decoded, &sent) {
		t.Fatalf("the copy %+v is not what its data decodes to %+v", sent, decoded)
	}
	u, _, _ = b.Add("u", "e", 1, protocol.UpdRTCUpdated, r)
	if len(u.Changes) != 1 || u.Changes[0].Value.(*protocol.RTC).Status != protocol.RTCExecuting {
		t.Fatalf("the latest change did not replace the copy: %+v", u.Changes)
	}
}

// A change's data is what json.Marshal gives for its entity, also for one
// with a MarshalJSON method, whose output is taken as it is.
func TestChangeDataIsTheEntitysEncoding(t *testing.T) {
	done := time.Date(2026, 12, 6, 10, 0, 0, 0, time.UTC)
	for _, v := range []any{
		&protocol.RTC{ID: "r1", UserID: "u", Status: protocol.RTCCompleted, Arguments: json.RawMessage(`{ "p" : "<a&b>" }`),
			Output: json.RawMessage("\"\u2028\""), Error: "x < y", Decision: &protocol.Decision{Decision: protocol.DecisionAllow}, UpdatedAt: done},
		protocol.RTC{ID: "r2", UserID: "u"},
		&protocol.Turn{ID: "t1", UserID: "u", Status: protocol.TurnRunning},
		(*protocol.RTC)(nil),
	} {
		want, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		got, err := encode(v)
		if err != nil || string(got) != string(want) {
			t.Errorf("encode(%T) = %s, %v; want %s", v, got, err, want)
		}
	}
}

// The JSON a row write noted for its entity (Sent) is the data of that
// entity's next change and of no other; a note another change came between
// is forgotten; an entity changed after its note is an error in tests.
func TestChangeTakesTheJSONItsRowNoted(t *testing.T) {
	var b Batch
	r := &protocol.RTC{ID: "r1", UserID: "u", Status: protocol.RTCPending}
	sent, _, err := r.Encode()
	if err != nil {
		t.Fatal(err)
	}
	noted := append([]byte(nil), sent...)
	b.Sent(r, noted)
	u, _, err := b.Add("u", "e", 1, protocol.UpdRTCUpdated, r)
	if err != nil || &u.Changes[0].Data[0] != &noted[0] {
		t.Fatalf("the change did not take the noted JSON: %s (%v)", u.Changes[0].Data, err)
	}

	other := &protocol.Turn{ID: "t1", UserID: "u"}
	b.Sent(r, noted)
	if u, _, err = b.Add("u", "e", 1, protocol.UpdTurnUpdated, other); err != nil || &u.Changes[1].Data[0] == &noted[0] {
		t.Fatalf("another entity's change took the note: %s (%v)", u.Changes[1].Data, err)
	}
	if u, _, err = b.Add("u", "e", 1, protocol.UpdRTCUpdated, r); err != nil || &u.Changes[0].Data[0] == &noted[0] {
		t.Fatalf("a note another change came between was kept: %v", err)
	}
	b.Sent(r, noted)
	if u, _, err = b.Add("u", "e", 1, protocol.UpdRTCUpdated, *r); err != nil || &u.Changes[0].Data[0] == &noted[0] {
		t.Fatalf("a change of the entity by value took its pointer's note: %v", err)
	}

	b.Sent(r, nil) // r did not encode
	if u, _, err = b.Add("u", "e", 1, protocol.UpdRTCUpdated, r); err != nil || len(u.Changes[0].Data) == 0 {
		t.Fatalf("a note of no JSON was taken: %q (%v)", u.Changes[0].Data, err)
	}

	b.Sent(r, noted)
	r.Status = protocol.RTCExecuting
	if _, _, err = b.Add("u", "e", 1, protocol.UpdRTCUpdated, r); err == nil {
		t.Fatal("an entity changed after its note was sent as noted")
	}
}

// The decoded copy a row write keeps (Decoded, after Sent) is the Value of
// that entity's next change, shared instead of copied again; it goes with
// its note, so another entity's change or a change after another note makes
// a copy of its own; a kept copy that is not the entity's is an error in
// tests.
func TestChangeCarriesTheCopyItsRowKept(t *testing.T) {
	var b Batch
	r := &protocol.RTC{ID: "r1", UserID: "u", Status: protocol.RTCPending, Audit: &protocol.AuditState{WorkMode: "edit"}}
	sent, _, err := r.Encode()
	if err != nil {
		t.Fatal(err)
	}
	kept := CloneAsDecoded(r)
	b.Sent(r, sent)
	b.Decoded(r, kept)
	u, _, err := b.Add("u", "e", 1, protocol.UpdRTCUpdated, r)
	if err != nil || u.Changes[0].Value != protocol.Keyed(kept) {
		t.Fatalf("the change did not carry the kept copy: %+v (%v)", u.Changes[0].Value, err)
	}

	other := &protocol.Turn{ID: "t1", UserID: "u"}
	b.Sent(r, sent)
	b.Decoded(other, CloneAsDecoded(other)) // not the noted entity's: ignored
	b.Decoded(r, kept)
	if u, _, err = b.Add("u", "e", 1, protocol.UpdTurnUpdated, other); err != nil || u.Changes[1].Value == protocol.Keyed(kept) {
		t.Fatalf("another entity's change carried the kept copy (%v)", err)
	}
	b.Decoded(r, kept) // no note of r left: ignored
	if u, _, err = b.Add("u", "e", 1, protocol.UpdRTCUpdated, r); err != nil || u.Changes[0].Value == protocol.Keyed(kept) {
		t.Fatalf("a change carried a copy kept without its note (%v)", err)
	}

	stale := CloneAsDecoded(r)
	stale.Status = protocol.RTCExecuting
	b.Sent(r, sent)
	b.Decoded(r, stale)
	if _, _, err = b.Add("u", "e", 1, protocol.UpdRTCUpdated, r); err == nil {
		t.Fatal("a kept copy that is not the entity's was carried")
	}
}

// An RTC kept decoded holds its audit state, and a turn its checkpoint, as
// their stored JSON decodes, though neither is sent.
func TestDecodedHoldsWhatIsStoredNotSent(t *testing.T) {
	at := time.Date(2026, 12, 7, 10, 0, 0, 0, time.UTC)
	r := &protocol.RTC{ID: "r1", UserID: "u", Arguments: json.RawMessage(`{ "p": 1 }`), Audit: &protocol.AuditState{WorkMode: "edit", EndedAt: &at}}
	tr := &protocol.Turn{ID: "t1", UserID: "u", Checkpoint: &protocol.TurnCheckpoint{ExpiresAt: at}}
	for _, c := range []struct {
		v, kept any
		encode  func() ([]byte, []byte, error)
	}{{r, CloneAsDecoded(r), r.Encode}, {tr, CloneAsDecoded(tr), tr.Encode}} {
		_, stored, err := c.encode()
		if err != nil {
			t.Fatal(err)
		}
		want := reflect.New(reflect.TypeOf(c.v).Elem())
		if err := json.Unmarshal(stored, want.Interface()); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(want.Interface(), c.kept) {
			t.Errorf("%T kept decoded as %+v, its stored JSON decodes as %+v", c.v, c.kept, want.Interface())
		}
	}
}
