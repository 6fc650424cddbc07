package session

import (
	"context"
	"testing"
	"time"

	"github.com/rtcagent/rtcagent/internal/protocol"
	"github.com/rtcagent/rtcagent/internal/store/pgstore"
	"github.com/rtcagent/rtcagent/internal/testsvc"
)

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

// On PostgreSQL, where the worker's writes and the API's run on different
// connections at once, a user's stop, close or delete of the turn a worker of the
// same node streams succeeds too: both sides lock the user's stream before they
// read what they change.
func TestUserEndsTheTurnAWorkerStreamsPG(t *testing.T) {
	for _, tc := range userEnds {
		t.Run(tc.name, func(t *testing.T) {
			m := newMidStepModel(t)
			st := openPGStore(t)
			_, a, ctx := startMidStep(t, st, m)
			var res protocol.MessageSendResult
			call(ctx, t, a, protocol.MethodMessageSend, map[string]any{"client_id": "c1", "content": map[string]string{"text": "hi"}}, &res)
			endWhileStreaming(ctx, t, st, a, m, tc.method, res.SessionID, res.TurnID, true)
		})
	}
}

// The same on PostgreSQL for a turn the worker took over from a dead node.
func TestUserEndsATurnTakenOverFromADeadNodePG(t *testing.T) {
	for _, tc := range userEnds {
		t.Run(tc.name, func(t *testing.T) {
			m := newMidStepModel(t)
			st := openPGStore(t)
			r, a, ctx := startMidStep(t, st, m)
			res, _ := deadStreamer(ctx, t, st, r.parts, "half a sentence", time.Millisecond)
			r.Wake(nil)
			endWhileStreaming(ctx, t, st, a, m, tc.method, res.SessionID, res.TurnID, true)
		})
	}
}
