package storetest

import (
	"encoding/json"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/rtcagent/rtcagent/internal/protocol"
	"github.com/rtcagent/rtcagent/internal/store"
)

// testAudit: a record is its RTC's row, written with the call; records list by
// user, session, time and cursor in the order their calls were created; a
// call without a record's state (a copy made by a fork) has none; pruning
// drops the records of ended calls older than the cut and keeps the calls.
func testAudit(t *testing.T, s store.Store, clock *Clock) {
	seq := 0
	rtc := func(id, user, sess string, st *protocol.AuditState) *protocol.RTC {
		seq++
		return &protocol.RTC{ID: id, UserID: user, SessionID: sess, TurnID: "T", Seq: seq, ToolName: "write",
			Arguments: json.RawMessage(`{"path":"/a.txt"}`), Status: protocol.RTCPending, CreatedAt: clock.Now(), Audit: st}
	}
	state := func() *protocol.AuditState { return &protocol.AuditState{DeviceID: "d-1", WorkMode: "edit"} }
	r1 := rtc("r1", "alice", "S1", state())
	write(t, s, func(tx store.Tx) error {
		err := tx.RTCInsert(r1)
		for _, r := range []*protocol.RTC{rtc("r2", "alice", "S1", state()), rtc("c1", "alice", "S1", nil),
			rtc("r3", "alice", "S1", state()), rtc("b1", "bob", "S2", state())} {
			err = errors.Join(err, tx.RTCInsert(r))
		}
		return err
	})
	clock.Advance(time.Minute)
	later := clock.Now()
	write(t, s, func(tx store.Tx) error {
		if err := tx.RTCInsert(rtc("r4", "alice", "S3", state())); err != nil {
			return err
		}
		// r1 ends: its record keeps its place and shows the outcome.
		end := clock.Now()
		r1.Status, r1.Output, r1.Audit.EndedAt = protocol.RTCCompleted, json.RawMessage(`"ok"`), &end
		r1.Audit.Decision = protocol.AuditDecision{Outcome: protocol.DecisionAllowed, By: protocol.DecidedByUser, DeviceID: "d-1", At: &end, Reason: "fine"}
		return tx.RTCUpdate(r1, protocol.RTCPending)
	})
	ids := func(q store.AuditQuery) []string {
		t.Helper()
		var out []string
		if err := s.Read(ctx, func(tx store.Tx) error {
			list, err := tx.AuditList(q)
			for _, a := range list {
				out = append(out, a.RTCID)
			}
			return err
		}); err != nil {
			t.Fatal(err)
		}
		return out
	}
	expect := func(got []string, want ...string) {
		t.Helper()
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("got %v, want %v", got, want)
		}
	}
	expect(ids(store.AuditQuery{UserID: "alice"}), "r1", "r2", "r3", "r4")
	expect(ids(store.AuditQuery{SessionID: "S1"}), "r1", "r2", "r3")
	expect(ids(store.AuditQuery{UserID: "alice", Limit: 2}), "r1", "r2")
	expect(ids(store.AuditQuery{UserID: "alice", AfterRTC: "r2"}), "r3", "r4")
	expect(ids(store.AuditQuery{UserID: "alice", Since: later}), "r4")
	expect(ids(store.AuditQuery{}), "r1", "r2", "r3", "b1", "r4")
	expect(ids(store.AuditQuery{UserID: "bob", SessionID: "S1"}))

	if err := s.Read(ctx, func(tx store.Tx) error {
		a, err := tx.AuditGet("r1")
		if err != nil {
			return err
		}
		if a.Status != protocol.RTCCompleted || string(a.Output) != `"ok"` || a.Decision.DeviceID != "d-1" || a.EndedAt == nil ||
			!a.CreatedAt.Equal(later.Add(-time.Minute)) || string(a.Arguments) != `{"path":"/a.txt"}` ||
			a.WorkMode != "edit" || a.DeviceID != "d-1" || a.ToolName != "write" || a.TurnID != "T" {
			return fmt.Errorf("record read back as %+v", a)
		}
		for _, id := range []string{"nope", "c1"} {
			if _, err := tx.AuditGet(id); !errors.Is(err, store.ErrNotFound) {
				return fmt.Errorf("record of %s: %v, want not found", id, err)
			}
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}

	// Pruning takes ended records older than the cut only.
	clock.Advance(time.Hour)
	write(t, s, func(tx store.Tx) error {
		n, err := tx.AuditPrune(clock.Now().Add(-30 * time.Minute))
		if err == nil && n != 1 {
			err = fmt.Errorf("pruned %d records, want 1", n)
		}
		return err
	})
	expect(ids(store.AuditQuery{UserID: "alice"}), "r2", "r3", "r4")
	if err := s.Read(ctx, func(tx store.Tx) error {
		if _, err := tx.AuditGet("r1"); !errors.Is(err, store.ErrNotFound) {
			return fmt.Errorf("a pruned record: %v, want not found", err)
		}
		r, err := tx.RTCGet("r1")
		if err == nil && r.Status != protocol.RTCCompleted {
			err = fmt.Errorf("the call of a pruned record: %+v", r)
		}
		return err
	}); err != nil {
		t.Fatal(err)
	}
}
