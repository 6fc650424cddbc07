package storetest

import (
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/rtcagent/rtcagent/internal/protocol"
	"github.com/rtcagent/rtcagent/internal/store"
)

// A failed compare-and-set or lease check fails the transaction, and nothing
// written after it commits, wherever the store makes the check (PostgreSQL
// makes it in the server, in one pipeline with the writes after it and
// COMMIT).
func testFailedCheckCommitsNothing(t *testing.T, s store.Store, _ *Clock) {
	tr := &protocol.Turn{ID: "t1", SessionID: "s", UserID: "u", Seq: 1, Status: protocol.TurnRunning}
	var l store.Lease
	write(t, s, func(tx store.Tx) error {
		var err error
		l, err = tx.LeaseAcquire("s", "A", time.Minute)
		return errors.Join(err, tx.TurnInsert(tr))
	})
	err := s.Write(ctx, func(tx store.Tx) error {
		if err := tx.TurnUpdate(tr, protocol.TurnWaiting); err != nil { // stored: running
			return err
		}
		return tx.MessageInsert(&protocol.Message{ID: "m1", SessionID: "s", UserID: "u", Seq: 1, Status: protocol.MessageComplete}, "")
	})
	if !errors.Is(err, store.ErrConflict) {
		t.Fatalf("writes after a failed compare-and-set: %v, want a conflict", err)
	}
	// An RTC's failed compare-and-set keeps neither the call's change nor
	// its record's.
	r := &protocol.RTC{ID: "r1", SessionID: "s", TurnID: "t1", UserID: "u", Seq: 1, Status: protocol.RTCPending,
		Audit: &protocol.AuditState{WorkMode: "edit"}}
	write(t, s, func(tx store.Tx) error { return tx.RTCInsert(r) })
	r.Status = protocol.RTCCompleted
	r.Audit = &protocol.AuditState{WorkMode: "plan"}
	err = s.Write(ctx, func(tx store.Tx) error {
		return tx.RTCUpdate(r, protocol.RTCExecuting) // stored: pending
	})
	if !errors.Is(err, store.ErrConflict) {
		t.Fatalf("an RTC's failed compare-and-set: %v, want a conflict", err)
	}
	err = s.Read(ctx, func(tx store.Tx) error {
		rec, err := tx.AuditGet("r1")
		if err == nil && (rec.Status != protocol.RTCPending || rec.WorkMode != "edit") {
			err = fmt.Errorf("the record after a failed compare-and-set: %+v", rec)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	// The record follows the call when the compare-and-set holds.
	write(t, s, func(tx store.Tx) error { return tx.RTCUpdate(r, protocol.RTCPending) })
	err = s.Read(ctx, func(tx store.Tx) error {
		rec, err := tx.AuditGet("r1")
		if err == nil && (rec.Status != protocol.RTCCompleted || rec.WorkMode != "plan") {
			err = fmt.Errorf("record %+v; want it completed, in plan mode", rec)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	err = s.Write(ctx, func(tx store.Tx) error {
		if err := tx.LeaseCheck(store.Lease{SessionID: "s", Holder: "A", Token: l.Token + 1, ExpiresAt: l.ExpiresAt}); err != nil {
			return err
		}
		return tx.MessageInsert(&protocol.Message{ID: "m2", SessionID: "s", UserID: "u", Seq: 1, Status: protocol.MessageComplete}, "")
	})
	if !errors.Is(err, store.ErrLeaseLost) {
		t.Fatalf("writes after a failed lease check: %v, want the lease lost", err)
	}
	err = s.Read(ctx, func(tx store.Tx) error {
		ms, err := tx.MessageList("s", store.Page{})
		if err == nil && len(ms) > 0 {
			err = fmt.Errorf("committed %d messages", len(ms))
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}

// What a write transaction reads after Prefetch is what it reads without it,
// its own writes included.
func testPrefetchAnswers(t *testing.T, s store.Store, _ *Clock) {
	sess := &protocol.Session{ID: "s", UserID: "u"}
	tr := &protocol.Turn{ID: "t", SessionID: "s", UserID: "u", Seq: 1, Status: protocol.TurnWaiting}
	a := &protocol.RTC{ID: "a", SessionID: "s", TurnID: "t", UserID: "u", Seq: 1, Status: protocol.RTCPending}
	b := &protocol.RTC{ID: "b", SessionID: "s", TurnID: "t", UserID: "u", Seq: 2, Status: protocol.RTCQueued}
	write(t, s, func(tx store.Tx) error {
		_, err := tx.UpdateAppend("u", protocol.UpdSessionCreated, sess)
		return errors.Join(err, tx.SessionInsert(sess), tx.TurnInsert(tr), tx.RTCInsert(a), tx.RTCInsert(b),
			tx.MessageInsert(&protocol.Message{ID: "m1", SessionID: "s", UserID: "u", Seq: 1}, ""),
			tx.MessageInsert(&protocol.Message{ID: "m2", SessionID: "s", UserID: "u", Seq: 2}, ""))
	})
	for name, want := range map[string]*store.Prefetch{
		"none":            nil,
		"turn of a call":  {Turn: "t", MessageSeq: "s", TurnSeq: "s", TurnOfRTC: "a"},
		"open calls":      {Turn: "t", MessageSeq: "s", OpenRTCsOf: "t"},
		"a message's key": {TurnSeq: "s", MessageSeq: "s", ClientUser: "u", ClientID: "k", Adopt: "s"},
	} {
		t.Run(name, func(t *testing.T) {
			err := s.Write(ctx, func(tx store.Tx) error {
				if want != nil {
					tx.Prefetch(*want)
				}
				r, err := tx.RTCGet("a")
				if err != nil {
					return err
				}
				if err := expectState(tx, protocol.TurnWaiting, 2, "a", "b"); err != nil {
					return fmt.Errorf("before writing: %w", err)
				}
				if n, err := tx.TurnMaxSeq("s"); err != nil || n != 1 {
					return fmt.Errorf("highest turn seq before writing: %d, %v; want 1", n, err)
				}
				r.Status = protocol.RTCCompleted
				c := &protocol.RTC{ID: "c", SessionID: "s", TurnID: "t", UserID: "u", Seq: 3, Status: protocol.RTCQueued}
				cur, err := tx.TurnGet("t")
				if err != nil {
					return err
				}
				cur.Status = protocol.TurnRunning
				if err := errors.Join(tx.RTCUpdate(r, protocol.RTCPending), tx.RTCInsert(c), tx.TurnUpdate(cur, protocol.TurnWaiting),
					tx.MessageInsert(&protocol.Message{ID: "m3", SessionID: "s", UserID: "u", Seq: 3}, "")); err != nil {
					return err
				}
				if err := expectState(tx, protocol.TurnRunning, 3, "b", "c"); err != nil {
					return fmt.Errorf("after writing: %w", err)
				}
				if err := expectClientID(tx); err != nil {
					return err
				}
				if err := tx.TurnInsert(&protocol.Turn{ID: "t2", SessionID: "s", UserID: "u", Seq: 2, Status: protocol.TurnQueued}); err != nil {
					return err
				}
				if n, err := tx.TurnMaxSeq("s"); err != nil || n != 2 {
					return fmt.Errorf("highest turn seq after writing: %d, %v; want 2", n, err)
				}
				return errRollback
			})
			if !errors.Is(err, errRollback) {
				t.Fatal(err)
			}
		})
	}
}

var errRollback = errors.New("roll back")

// expectClientID: a key unused until the transaction stores a message under
// it, then that message; a second message under it is a duplicate.
func expectClientID(tx store.Tx) error {
	if _, err := tx.MessageByClientID("u", "k"); !errors.Is(err, store.ErrNotFound) {
		return fmt.Errorf("an unused key: %v", err)
	}
	m := &protocol.Message{ID: "mk", SessionID: "s", UserID: "u", Seq: 4}
	if err := tx.MessageInsert(m, "k"); err != nil {
		return err
	}
	if got, err := tx.MessageByClientID("u", "k"); err != nil || got.ID != "mk" {
		return fmt.Errorf("the key's message after storing it: %v, %v", got, err)
	}
	if err := tx.MessageInsert(&protocol.Message{ID: "mk2", SessionID: "s", UserID: "u", Seq: 5}, "k"); !errors.Is(err, store.ErrDuplicate) {
		return fmt.Errorf("a second message under the key: %v, want a duplicate", err)
	}
	return nil
}

// expectState checks the turn t's status, session s's highest message seq and
// the ids of t's open calls.
func expectState(tx store.Tx, status string, seq int64, open ...string) error {
	tr, err := tx.TurnGet("t")
	if err != nil {
		return err
	}
	n, err := tx.MessageMaxSeq("s")
	if err != nil {
		return err
	}
	rtcs, err := tx.RTCListOpenByTurn("t")
	if err != nil {
		return err
	}
	var ids []string
	for _, r := range rtcs {
		ids = append(ids, r.ID)
	}
	if tr.Status != status || n != seq || !slices.Equal(ids, open) {
		return fmt.Errorf("turn %s, highest seq %d, open calls %v; want %s, %d, %v", tr.Status, n, ids, status, seq, open)
	}
	return nil
}
