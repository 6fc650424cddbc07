package pgstore_test

import (
	"context"
	"errors"
	"testing"

	"github.com/rtcagent/rtcagent/internal/protocol"
	"github.com/rtcagent/rtcagent/internal/store"
	"github.com/rtcagent/rtcagent/internal/store/pgstore"
)

// A write transaction sends BEGIN with its first statement and its last writes
// with COMMIT: an append to a user's stream (lock, then the update) is two
// exchanges with the server, and a Write that only appends to a stream it locked
// already costs nothing more before the commit.
func TestPipelinedExchanges(t *testing.T) {
	url := serverURL(t)
	s := openStore(t, url, freshSchema(t, url), nil)
	ctx := context.Background()
	appendTwo := func(tx store.Tx) error {
		for range 2 {
			if _, err := tx.UpdateAppend("u", protocol.UpdRTCUpdated, map[string]int{"n": 1}); err != nil {
				return err
			}
		}
		return nil
	}
	if err := s.Write(ctx, appendTwo); err != nil { // creates the stream row
		t.Fatal(err)
	}
	before := pgstore.ReadCounts()
	if err := s.Write(ctx, appendTwo); err != nil {
		t.Fatal(err)
	}
	got := pgstore.ReadCounts().Sub(before)
	// BEGIN + SELECT … FOR UPDATE; the one update of both appends + COMMIT.
	if got.Exchanges != 2 || got.Statements != 4 || got.Writes != 1 {
		t.Fatalf("one write of two appends: %+v; want 2 exchanges, 4 statements, 1 write transaction", got)
	}
	var ups []protocol.Update
	if err := s.Read(ctx, func(tx store.Tx) error {
		var err error
		ups, _, err = tx.UpdateList("u", 0, -1, 0)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if len(ups) != 2 || ups[1].Offset != 2 || len(ups[1].Changes) != 2 {
		t.Fatalf("updates after two writes: %d, want offsets 1..2 of two changes each", len(ups))
	}
}

// A write sent later that fails fails the statement it travels with and the
// transaction, whatever fn does with that error: nothing of it commits.
func TestPipelinedWriteFailureRollsBack(t *testing.T) {
	url := serverURL(t)
	s := openStore(t, url, freshSchema(t, url), nil)
	ctx := context.Background()
	turn := func(id string) *protocol.Turn {
		return &protocol.Turn{ID: id, SessionID: "s", UserID: "u", Seq: 1, Status: protocol.TurnQueued}
	}
	if err := s.Write(ctx, func(tx store.Tx) error { return tx.TurnInsert(turn("t1")) }); err != nil {
		t.Fatal(err)
	}
	var readErr error
	err := s.Write(ctx, func(tx store.Tx) error {
		if _, err := tx.UpdateAppend("u", protocol.UpdTurnCreated, nil); err != nil {
			return err
		}
		if err := tx.TurnInsert(turn("t1")); err != nil { // a duplicate id, not sent yet
			return err
		}
		_, readErr = tx.TurnNextQueued("s") // carries the insert: fails
		return nil                          // and fn ignores it
	})
	if readErr == nil || errors.Is(readErr, store.ErrNotFound) {
		t.Fatalf("read after a failing write: %v, want the write's error", readErr)
	}
	if err == nil {
		t.Fatal("the transaction committed after one of its writes failed")
	}
	if err := s.Read(ctx, func(tx store.Tx) error {
		p, err := tx.StreamGet("u")
		if err == nil && p.Top != 0 {
			t.Errorf("stream top %d after the failed transaction, want 0", p.Top)
		}
		return err
	}); err != nil {
		t.Fatal(err)
	}
}
