package sqlitestore

import (
	"context"
	"testing"
	"time"

	"github.com/rtcagent/rtcagent/internal/protocol"
	"github.com/rtcagent/rtcagent/internal/store"
)

// When the database ends a group's transaction under it (a full disk, say),
// the whole group is rolled back, and the writer forgets what the group's
// writes that had gone through left in its memory: the next write reads the
// turn as the database has it, and the leases are as the last commit left
// them.
func TestAGroupRolledBackIsForgotten(t *testing.T) {
	ctx := context.Background()
	s := openTemp(t)
	var held store.Lease
	if err := s.Write(ctx, func(tx store.Tx) (err error) {
		held, err = tx.LeaseAcquire("s1", "n1", time.Hour)
		if err != nil {
			return err
		}
		return tx.TurnInsert(&protocol.Turn{ID: "t1", SessionID: "s1", UserID: "u1", Seq: 1, Status: protocol.TurnRunning})
	}); err != nil {
		t.Fatal(err)
	}
	complete := &write{ctx: ctx, taken: make(chan struct{}), done: make(chan struct{}), fn: func(tx store.Tx) error {
		tr, err := tx.TurnGet("t1")
		if err != nil {
			return err
		}
		tr.Status = protocol.TurnCompleted
		if err := tx.LeaseRelease(held); err != nil {
			return err
		}
		if _, err := tx.LeaseAcquire("s2", "n1", time.Hour); err != nil {
			return err
		}
		return tx.TurnUpdate(tr, protocol.TurnRunning)
	}}
	endsTheTransaction := &write{ctx: ctx, taken: make(chan struct{}), done: make(chan struct{}), fn: func(st store.Tx) error {
		_, err := st.(*tx).exec("ROLLBACK")
		return err
	}}
	s.group.leader <- struct{}{} // run gives the token back
	s.group.run([]*write{complete, endsTheTransaction})
	if complete.err == nil {
		t.Fatal("a write of a group rolled back reported success")
	}
	if err := s.Write(ctx, func(tx store.Tx) error {
		tr, err := tx.TurnGet("t1")
		if err == nil && tr.Status != protocol.TurnRunning {
			t.Errorf("the turn after its group was rolled back: %s", tr.Status)
		}
		if err := tx.LeaseCheck(held); err != nil {
			t.Errorf("the lease the group gave back: %v", err)
		}
		if _, err := tx.LeaseAcquire("s2", "n2", time.Hour); err != nil {
			t.Errorf("the lease the group took: %v", err)
		}
		return err
	}); err != nil {
		t.Fatal(err)
	}
}

// A read sees the leases of committed writes only: a lease a group took
// while its commit is pending holds no session yet, and none once that
// commit failed.
func TestReadsSeeCommittedLeases(t *testing.T) {
	ctx := context.Background()
	s := openTemp(t)
	if err := s.Write(ctx, func(tx store.Tx) error {
		return tx.InboxInsert(&store.InboxItem{SessionID: "s1", Kind: "turn.start", TurnID: "t1"})
	}); err != nil {
		t.Fatal(err)
	}
	candidates := func() []string {
		var ids []string
		if err := s.Read(ctx, func(tx store.Tx) (err error) {
			ids, err = tx.InboxSessions(10)
			return err
		}); err != nil {
			t.Fatal(err)
		}
		return ids
	}
	var during []string
	takes := &write{ctx: ctx, taken: make(chan struct{}), done: make(chan struct{}), fn: func(tx store.Tx) error {
		_, err := tx.LeaseAcquire("s1", "n1", time.Hour)
		return err
	}}
	reads := &write{ctx: ctx, taken: make(chan struct{}), done: make(chan struct{}), fn: func(st store.Tx) error {
		during = candidates() // the group's lease is staged, not committed
		_, err := st.(*tx).exec("ROLLBACK")
		return err
	}}
	s.group.leader <- struct{}{}
	s.group.run([]*write{takes, reads})
	if takes.err == nil {
		t.Fatal("a write of a group rolled back reported success")
	}
	if len(during) != 1 || during[0] != "s1" {
		t.Errorf("candidates while the group's lease was not committed: %v", during)
	}
	if after := candidates(); len(after) != 1 || after[0] != "s1" {
		t.Errorf("candidates after the group rolled back: %v", after)
	}
}
