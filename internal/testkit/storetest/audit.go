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

// testAudit: records are replaced by RTC id and keep their place in the order,
// list by user, session, time and cursor, and prune only ended calls older than
// the cut.
func testAudit(t *testing.T, s store.Store, clock *Clock) {
	rec := func(id, user, sess string) *protocol.AuditRecord {
		return &protocol.AuditRecord{RTCID: id, UserID: user, SessionID: sess, TurnID: "T", ToolName: "write",
			Arguments: json.RawMessage(`{"path":"/a.txt"}`), WorkMode: "edit", Status: protocol.RTCPending, CreatedAt: clock.Now()}
	}
	write(t, s, func(tx store.Tx) error {
		for i := 1; i <= 3; i++ {
			if err := tx.AuditPut(rec(fmt.Sprintf("r%d", i), "alice", "S1")); err != nil {
				return err
			}
		}
		return tx.AuditPut(rec("b1", "bob", "S2"))
	})
	clock.Advance(time.Minute)
	later := clock.Now()
	write(t, s, func(tx store.Tx) error {
		if err := tx.AuditPut(rec("r4", "alice", "S3")); err != nil {
			return err
		}
		// Replacing r1 keeps it first and stores the new content.
		a, err := tx.AuditGet("r1")
		if err != nil {
			return err
		}
		end := clock.Now()
		a.Status, a.Output, a.EndedAt = protocol.RTCCompleted, json.RawMessage(`"ok"`), &end
		a.Decision = protocol.AuditDecision{Outcome: protocol.DecisionAllowed, By: protocol.DecidedByUser, DeviceID: "d-1", At: &end, Reason: "fine"}
		return tx.AuditPut(a)
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
			!a.CreatedAt.Equal(later.Add(-time.Minute)) || string(a.Arguments) != `{"path":"/a.txt"}` {
			return fmt.Errorf("record read back as %+v", a)
		}
		if _, err := tx.AuditGet("nope"); !errors.Is(err, store.ErrNotFound) {
			return fmt.Errorf("missing record: %v", err)
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
}
