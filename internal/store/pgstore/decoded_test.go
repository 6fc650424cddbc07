package pgstore_test

import (
	"errors"
	"testing"

	"github.com/rtcagent/rtcagent/internal/protocol"
	"github.com/rtcagent/rtcagent/internal/store"
)

// A node keeps the rows it wrote or read decoded, and reads them again
// without decoding while their stored text is the same. What it reads follows
// the database all the same: a change another node made, and the row as it
// was when this node's own write rolled back; and each read is a copy of its
// own.
func TestRowsKeptDecodedFollowTheDatabase(t *testing.T) {
	url := serverURL(t)
	schema := freshSchema(t, url)
	a, b := openStore(t, url, schema, nil), openStore(t, url, schema, nil)
	sess := &protocol.Session{ID: "s", UserID: "u", Title: "first"}
	tr := &protocol.Turn{ID: "t", SessionID: "s", UserID: "u", Seq: 1, Status: protocol.TurnRunning}
	r := &protocol.RTC{ID: "r", SessionID: "s", TurnID: "t", UserID: "u", Seq: 1, Status: protocol.RTCPending, ToolName: "ls"}
	if err := a.Write(ctx, func(tx store.Tx) error {
		_, err := tx.UpdateAppend("u", protocol.UpdSessionCreated, sess)
		return errors.Join(err, tx.SessionInsert(sess), tx.TurnInsert(tr), tx.RTCInsert(r))
	}); err != nil {
		t.Fatal(err)
	}
	read := func(s store.Store) (sess *protocol.Session, tr *protocol.Turn, r *protocol.RTC) {
		t.Helper()
		if err := s.Write(ctx, func(tx store.Tx) error {
			var errR, errS, errT error
			r, errR = tx.RTCGet("r") // locks the user's stream first
			sess, errS = tx.SessionGet("s")
			tr, errT = tx.TurnGet("t")
			return errors.Join(errR, errS, errT)
		}); err != nil {
			t.Fatal(err)
		}
		return sess, tr, r
	}
	gotS, gotT, gotR := read(a)
	if gotS.Title != "first" || gotT.Status != protocol.TurnRunning || gotR.Status != protocol.RTCPending {
		t.Fatalf("read back %+v %+v %+v", gotS, gotT, gotR)
	}
	// Each read is a copy: changing one changes no later read.
	gotS.Title, gotT.Status, gotR.ToolName = "changed", "changed", "changed"
	if s2, t2, r2 := read(a); s2.Title != "first" || t2.Status != protocol.TurnRunning || r2.ToolName != "ls" {
		t.Fatalf("a read saw a change made to an earlier read's copy: %+v %+v %+v", s2, t2, r2)
	}

	// Another node changes all three.
	if err := b.Write(ctx, func(tx store.Tx) error {
		r, err := tx.RTCGet("r")
		if err != nil {
			return err
		}
		s, errS := tx.SessionGet("s")
		tr, errT := tx.TurnGet("t")
		if err := errors.Join(errS, errT); err != nil {
			return err
		}
		s.Title, tr.Status, r.Status = "second", protocol.TurnWaiting, protocol.RTCCompleted
		return errors.Join(tx.SessionUpdate(s), tx.TurnUpdate(tr, protocol.TurnRunning), tx.RTCUpdate(r, protocol.RTCPending))
	}); err != nil {
		t.Fatal(err)
	}
	if s2, t2, r2 := read(a); s2.Title != "second" || t2.Status != protocol.TurnWaiting || r2.Status != protocol.RTCCompleted {
		t.Fatalf("after another node's change: %+v %+v %+v", s2, t2, r2)
	}

	// This node writes a turn and rolls back: the turn reads as stored.
	rollback := errors.New("roll back")
	if err := a.Write(ctx, func(tx store.Tx) error {
		tr, err := tx.TurnGet("t")
		if err != nil {
			return err
		}
		tr.Status = protocol.TurnCompleted
		if err := tx.TurnUpdate(tr, protocol.TurnWaiting); err != nil {
			return err
		}
		if _, err := tx.TurnGet("t"); err != nil { // sends the update
			return err
		}
		return rollback
	}); !errors.Is(err, rollback) {
		t.Fatalf("write: %v", err)
	}
	if _, t2, _ := read(a); t2.Status != protocol.TurnWaiting {
		t.Fatalf("after a write rolled back the turn reads %q, want %q", t2.Status, protocol.TurnWaiting)
	}
}
