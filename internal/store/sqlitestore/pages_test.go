package sqlitestore_test

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/rtcagent/rtcagent/internal/protocol"
	"github.com/rtcagent/rtcagent/internal/store"
	"github.com/rtcagent/rtcagent/internal/store/sqlitestore"
)

// A commit writes a page for each B-tree (table or index) it changes, so a
// change writes only the indexes it must: an open call's change its row and
// its entry among the open calls (which holds its deadline), a call's end
// also the record's end (not its turn's entry), an inbox item (queued and
// taken in one commit, or either) its session's part of the inbox alone, and
// a turn's resumption, which the writer keeps in memory, nothing.
func TestChangesWriteOnlyTheirBTrees(t *testing.T) {
	ctx := context.Background()
	s, err := sqlitestore.Open(ctx, filepath.Join(t.TempDir(), "test.db"), sqlitestore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	deadline := time.Now().Add(time.Hour)
	r := &protocol.RTC{ID: "r1", SessionID: "s1", TurnID: "t1", UserID: "u1", Seq: 1, Status: protocol.RTCPending,
		ToolName: "write", CreatedAt: time.Now(), DeadlineAt: &deadline, Audit: &protocol.AuditState{WorkMode: "edit"}}
	pages := func(what string, fn func(tx store.Tx) error) int64 {
		t.Helper()
		before := s.Counts()
		if err := s.Write(ctx, fn); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		return s.Counts().Sub(before).Pages
	}
	// The first commit after opening counts its own pages, not the
	// migrations': a call's row and its indexes, page 1 at most besides.
	if n := pages("insert", func(tx store.Tx) error { return tx.RTCInsert(r) }); n > 7 {
		t.Errorf("the first commit wrote %d pages, want at most 7 (its row, its 5 indexes, page 1)", n)
	}

	if n := pages("an open call's change", func(tx store.Tx) error {
		r.Status = protocol.RTCExecuting
		return tx.RTCUpdate(r, protocol.RTCPending)
	}); n > 2 {
		t.Errorf("an open call's change wrote %d pages, want 2 (its row, its open entry)", n)
	}
	if n := pages("a call's end", func(tx store.Tx) error {
		r.Status, r.DeadlineAt = protocol.RTCCompleted, nil
		now := time.Now()
		r.Audit.EndedAt = &now
		return tx.RTCUpdate(r, protocol.RTCExecuting)
	}); n > 3 {
		t.Errorf("a call's end wrote %d pages, want 3 (its row, its open entry, the records' ends)", n)
	}
	queueAndTake := func(kind string) int64 {
		return pages("an inbox item queued and taken", func(tx store.Tx) error {
			it := store.InboxItem{SessionID: "s1", Kind: kind, TurnID: "t1"}
			if err := tx.InboxInsert(&it); err != nil {
				return err
			}
			return tx.InboxDelete(it)
		})
	}
	if n := queueAndTake("turn.start"); n > 1 {
		t.Errorf("an inbox item queued and taken wrote %d pages, want 1", n)
	}
	if n := queueAndTake(store.KindTurnResume); n != 0 {
		t.Errorf("a turn's resumption queued and taken wrote %d pages, want none", n)
	}

	// A record pruned is written again when its call changes with it.
	err = s.Write(ctx, func(tx store.Tx) error {
		if _, err := tx.AuditPrune(time.Now().Add(time.Hour)); err != nil {
			return err
		}
		r.Error = "changed after its end"
		return tx.RTCUpdate(r, protocol.RTCCompleted)
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Read(ctx, func(tx store.Tx) error {
		_, err := tx.AuditGet("r1")
		return err
	}); err != nil {
		t.Fatalf("the record of a pruned call changed again: %v", err)
	}
}
