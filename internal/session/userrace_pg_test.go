package session

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/rtcagent/rtcagent/internal/api"
	"github.com/rtcagent/rtcagent/internal/protocol"
	"github.com/rtcagent/rtcagent/internal/store"
	"github.com/rtcagent/rtcagent/internal/store/pgstore"
	"github.com/rtcagent/rtcagent/internal/testkit/testsvc"
)

// openPGStore opens a store on a fresh PostgreSQL schema, closed with the test.
func openPGStore(t *testing.T) *pgstore.Store {
	t.Helper()
	url := testsvc.PostgresURL(t)
	st, err := pgstore.Open(context.Background(), url, pgstore.Options{Schema: testsvc.Schema(t, url)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

// pgRunner runs a runner and the API on a fresh PostgreSQL schema, where writes of
// different connections interleave under READ COMMITTED.
func pgRunner(t *testing.T) (store.Store, *api.API, context.Context) {
	t.Helper()
	st := openPGStore(t)
	r, ctx := startRunner(t, Config{Store: st, Model: helloModel(t), PollInterval: 20 * time.Millisecond})
	st.SetCommitHook(func(c store.Commit) { r.Wake(c.Wake) })
	return st, api.New(st, r, protocol.Limits{MessagesPerMinute: 1 << 20, MessageBurst: 1 << 20}, slog.Default()), ctx
}

func readSession(ctx context.Context, t *testing.T, st store.Store, id string) *protocol.Session {
	t.Helper()
	var s *protocol.Session
	if err := st.Read(ctx, func(tx store.Tx) error { var err error; s, err = tx.SessionGet(id); return err }); err != nil {
		t.Fatal(err)
	}
	return s
}

// A message that changes the work mode, sent while the session's turn ends, keeps
// both changes: the session ends idle and the new turn starts. (Writing back a
// session read before the turn ended made the ended turn active again, and the
// new turn stayed queued forever.)
func TestWorkModeSendRacingTurnEnd(t *testing.T) {
	st, a, ctx := pgRunner(t)
	modes := []string{protocol.ModePlan, protocol.ModeEdit}
	const sessions, sends = 4, 25
	var wg sync.WaitGroup
	for u := range sessions {
		wg.Go(func() {
			var first protocol.MessageSendResult
			call(ctx, t, a, protocol.MethodMessageSend, map[string]any{"client_id": fmt.Sprintf("s%d-0", u), "content": map[string]string{"text": "hi"}}, &first)
			prev := first.TurnID
			for i := 1; i <= sends; i++ {
				// Sent as the previous turn streams its one-word answer and ends.
				var res protocol.MessageSendResult
				call(ctx, t, a, protocol.MethodMessageSend, map[string]any{"client_id": fmt.Sprintf("s%d-%d", u, i), "session_id": first.SessionID,
					"work_mode": modes[i%2], "content": map[string]string{"text": "hi"}}, &res)
				waitCompleted(ctx, t, st, prev)
				prev = res.TurnID
			}
			waitCompleted(ctx, t, st, prev)
			if s := readSession(ctx, t, st, first.SessionID); s.ActiveTurnID != "" || s.WorkMode != modes[sends%2] {
				t.Errorf("session after its turns: active turn %q, work mode %s", s.ActiveTurnID, s.WorkMode)
			}
		})
	}
	wg.Wait()
}

// A session deleted while its first turn starts stays deleted, and its turn ends:
// the start never writes back the session it read before the delete.
func TestTurnStartRacingDelete(t *testing.T) {
	st, a, ctx := pgRunner(t)
	for i := range 30 {
		// Sent without adoption: the runner's claim starts the turn in its own
		// transaction, while the delete commits.
		res := send(ctx, t, st, &protocol.MessageSendRequest{ClientID: fmt.Sprintf("d%d", i), Content: protocol.MessageContent{Text: "hi"}})
		var del protocol.SessionResult
		call(ctx, t, a, protocol.MethodSessionDelete, map[string]string{"session_id": res.SessionID}, &del)
		waitFor(t, "the turn to end", func() bool {
			var turn *protocol.Turn
			err := st.Read(ctx, func(tx store.Tx) error { var err error; turn, err = tx.TurnGet(res.TurnID); return err })
			return err == nil && protocol.TurnTerminal(turn.Status)
		})
		time.Sleep(20 * time.Millisecond) // let a late start, if any, commit
		if s := readSession(ctx, t, st, res.SessionID); !s.Deleted {
			t.Fatalf("session %d came back after its delete (active turn %q)", i, s.ActiveTurnID)
		}
	}
}
