package core_test

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/rtcagent/rtcagent/internal/core"
	"github.com/rtcagent/rtcagent/internal/protocol"
	"github.com/rtcagent/rtcagent/internal/store"
	"github.com/rtcagent/rtcagent/internal/store/pgstore"
	"github.com/rtcagent/rtcagent/internal/testkit/testsvc"
)

var (
	ctx    = context.Background()
	caller = core.Caller{UserID: "u", DeviceID: "d"}
)

func pgStore(t *testing.T) store.Store {
	t.Helper()
	url := testsvc.PostgresURL(t)
	st, err := pgstore.Open(ctx, url, pgstore.Options{Schema: testsvc.Schema(t, url)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

func write(t *testing.T, st store.Store, fn func(tx store.Tx) error) {
	t.Helper()
	if err := st.Write(ctx, fn); err != nil {
		t.Fatal(err)
	}
}

// forkSource writes a session with a completed turn and a second user message to
// fork from; it returns the session and that message.
func forkSource(t *testing.T, st store.Store) (string, string) {
	t.Helper()
	var first, second *protocol.MessageSendResult
	write(t, st, func(tx store.Tx) error {
		var err error
		if first, err = core.SendMessage(tx, caller, &protocol.MessageSendRequest{ClientID: "m1", Content: protocol.MessageContent{Text: "one"}}); err != nil {
			return err
		}
		turn, err := tx.TurnGet(first.TurnID)
		if err != nil {
			return err
		}
		turn.Status = protocol.TurnCompleted
		if err := core.EmitTurn(tx, turn, protocol.TurnQueued); err != nil {
			return err
		}
		answer := &protocol.Message{ID: core.NewID(), SessionID: first.SessionID, TurnID: turn.ID, UserID: caller.UserID, Seq: 2,
			Role: protocol.RoleAssistant, Text: "answer", Status: protocol.MessageComplete}
		if err := core.EmitMessage(tx, answer, "", ""); err != nil {
			return err
		}
		second, err = core.SendMessage(tx, caller, &protocol.MessageSendRequest{ClientID: "m2", SessionID: first.SessionID, Content: protocol.MessageContent{Text: "two"}})
		return err
	})
	return first.SessionID, second.MessageID
}

func fork(st store.Store, src, at string) (*protocol.MessageSendResult, error) {
	var res *protocol.MessageSendResult
	err := st.Write(ctx, func(tx store.Tx) error {
		var err error
		res, err = core.ForkSession(tx, caller, &protocol.SessionForkRequest{ClientID: "f1", SessionID: src, MessageID: at, Text: "two again"})
		return err
	})
	return res, err
}

func sessionCount(t *testing.T, st store.Store) int {
	t.Helper()
	var list []protocol.Session
	if err := st.Read(ctx, func(tx store.Tx) error { var err error; list, err = tx.SessionList(caller.UserID, "", 100); return err }); err != nil {
		t.Fatal(err)
	}
	return len(list)
}

// A fork repeated with its client_id returns the first fork and writes nothing: no
// third, empty "(fork)" session.
func TestForkRepeatedReturnsTheFirst(t *testing.T) {
	st := testsvc.SQLite(t)
	src, at := forkSource(t, st)
	a, err := fork(st, src, at)
	if err != nil {
		t.Fatal(err)
	}
	b, err := fork(st, src, at)
	if err != nil {
		t.Fatal(err)
	}
	if *a != *b {
		t.Fatalf("repeated fork: %+v, first %+v", b, a)
	}
	if n := sessionCount(t, st); n != 2 {
		t.Fatalf("%d sessions after a fork and its repeat, want 2", n)
	}
	var msgs []protocol.Message
	if err := st.Read(ctx, func(tx store.Tx) error {
		var err error
		msgs, err = tx.MessageList(a.SessionID, store.Page{Limit: 100})
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprintf("%d %s|%s|%s", len(msgs), msgs[0].Text, msgs[1].Text, msgs[2].Text); got != "3 one|answer|two again" {
		t.Fatalf("fork's messages: %s", got)
	}
}

// Forks with the same client_id committing at once on PostgreSQL: each returns the
// one fork, none fails, and only that fork is written.
func TestForkConcurrentSameClientID(t *testing.T) {
	st := pgStore(t)
	src, at := forkSource(t, st)
	const n = 6
	res := make([]*protocol.MessageSendResult, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() { res[i], errs[i] = fork(st, src, at) })
	}
	wg.Wait()
	for i := range n {
		if errs[i] != nil {
			t.Fatalf("fork %d: %v", i, errs[i])
		}
		if *res[i] != *res[0] {
			t.Fatalf("fork %d returned %+v, fork 0 %+v", i, res[i], res[0])
		}
	}
	if c := sessionCount(t, st); c != 2 {
		t.Fatalf("%d sessions after concurrent forks with one client_id, want 2", c)
	}
}
