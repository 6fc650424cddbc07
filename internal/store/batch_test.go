package store

import (
	"encoding/json"
	"reflect"
	"testing"

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
