package session

import (
	"context"
	"errors"
	"log/slog"
	"testing"
	"time"

	"github.com/rtcagent/rtcagent/internal/api"
	"github.com/rtcagent/rtcagent/internal/llm"
	"github.com/rtcagent/rtcagent/internal/protocol"
	"github.com/rtcagent/rtcagent/internal/store"
	"github.com/rtcagent/rtcagent/internal/testkit/testsvc"
)

// midStepModel streams the first event of each step (the text that creates the
// streaming message), then reports on entered and holds the rest of the step until
// gate closes or the step's context ends (a stop cancels it).
type midStepModel struct {
	llm.Model
	entered chan struct{}
	gate    chan struct{}
}

func newMidStepModel(t *testing.T) midStepModel {
	return midStepModel{Model: helloModel(t), entered: make(chan struct{}, 1), gate: make(chan struct{})}
}

func (m midStepModel) Stream(ctx context.Context, req *llm.Request) (llm.Stream, error) {
	s, err := m.Model.Stream(ctx, req)
	if err != nil {
		return nil, err
	}
	return &midStepStream{Stream: s, ctx: ctx, m: m}, nil
}

type midStepStream struct {
	llm.Stream
	ctx  context.Context
	m    midStepModel
	next int
	err  error
}

func (s *midStepStream) Next() bool {
	s.next++
	if s.next == 2 {
		select {
		case s.m.entered <- struct{}{}:
		default:
		}
		select {
		case <-s.m.gate:
		case <-s.ctx.Done():
			s.err = s.ctx.Err()
			return false
		}
	}
	return s.Stream.Next()
}

func (s *midStepStream) Err() error {
	if s.err != nil {
		return s.err
	}
	return s.Stream.Err()
}

// userEnds are the calls with which a user ends a turn that a worker of the same
// node is streaming right now.
var userEnds = []struct{ name, method string }{
	{"stop", protocol.MethodTurnStop},
	{"close", protocol.MethodSessionClose},
	{"delete", protocol.MethodSessionDelete},
}

// endWhileStreaming calls method for the session while its turn's step streams,
// and checks the call succeeded and ended the turn: the turn stopped, the
// message the step was streaming interrupted with the text it showed, the
// worker gone (inbox empty) when it still holds the lease, and the session closed,
// deleted or open.
func endWhileStreaming(ctx context.Context, t *testing.T, st store.Store, a *api.API, m midStepModel, method, sessionID, turnID string, workerHolds bool) {
	t.Helper()
	select {
	case <-m.entered:
	case <-time.After(10 * time.Second):
		t.Fatal("the model step did not start")
	}
	var streaming *protocol.Message
	err := st.Read(ctx, func(tx store.Tx) error {
		msgs, err := tx.MessageList(sessionID, store.Page{Limit: 100})
		for i := range msgs {
			if msgs[i].TurnID == turnID && msgs[i].Status == protocol.MessageStreaming {
				streaming = &msgs[i]
			}
		}
		return err
	})
	if err != nil || streaming == nil {
		t.Fatalf("no streaming message mid-step (err %v)", err)
	}
	// The user's call, while the worker holds the lease and the model streams.
	call(ctx, t, a, method, map[string]string{"session_id": sessionID}, &map[string]any{})

	if workerHolds {
		waitFor(t, "the worker to drop the session's inbox item", func() bool {
			err := st.Read(ctx, func(tx store.Tx) error { _, err := tx.InboxNext(sessionID); return err })
			return errors.Is(err, store.ErrNotFound)
		})
	}
	err = st.Read(ctx, func(tx store.Tx) error {
		turn, err := tx.TurnGet(turnID)
		if err != nil {
			return err
		}
		if turn.Status != protocol.TurnStopped {
			t.Errorf("turn %s after %s, want stopped", turn.Status, method)
		}
		msg, err := tx.MessageGet(streaming.ID)
		if err != nil {
			return err
		}
		if msg.Status != protocol.MessageInterrupted || msg.Text != "hello" {
			t.Errorf("streaming message after %s: %s %q, want interrupted %q", method, msg.Status, msg.Text, "hello")
		}
		s, err := tx.SessionGet(sessionID)
		if err != nil {
			return err
		}
		switch {
		case s.ActiveTurnID != "":
			t.Errorf("session still has active turn %s", s.ActiveTurnID)
		case method == protocol.MethodSessionClose && s.Status != protocol.SessionClosed,
			method == protocol.MethodSessionDelete && !s.Deleted,
			method == protocol.MethodTurnStop && (s.Status != protocol.SessionOpen || s.Deleted):
			t.Errorf("session after %s: status %s, deleted %v", method, s.Status, s.Deleted)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// startMidStep runs a runner with a model that holds each step mid-stream, woken
// by the store's commits, and the API over it.
func startMidStep(t *testing.T, st midStepStore, m midStepModel) (*Runner, *api.API, context.Context) {
	t.Helper()
	r, ctx := startRunner(t, Config{Store: st, Model: m, PollInterval: 20 * time.Millisecond})
	st.SetCommitHook(func(c store.Commit) { r.Wake(c.Wake) })
	return r, api.New(st, r, protocol.Limits{}, slog.Default()), ctx
}

// midStepStore is a store whose commits can wake the runner.
type midStepStore interface {
	store.Store
	SetCommitHook(func(store.Commit))
}

// bothStores runs f on SQLite, where writes take turns on one connection, and
// on PostgreSQL, where the worker's writes and the API's run on different
// connections at once and both lock the user's stream before they read what
// they change.
func bothStores(t *testing.T, f func(t *testing.T, open func(*testing.T) midStepStore)) {
	t.Run("sqlite", func(t *testing.T) { f(t, func(t *testing.T) midStepStore { return testsvc.SQLite(t) }) })
	t.Run("postgres", func(t *testing.T) { f(t, func(t *testing.T) midStepStore { return openPGStore(t) }) })
}

// A user stops, closes or deletes a session whose turn a worker of the same node
// is streaming: the call succeeds (the API's transaction ends the turn; the
// worker finds it ended at its next write), never with a conflict.
func TestUserEndsTheTurnAWorkerStreams(t *testing.T) {
	bothStores(t, func(t *testing.T, open func(*testing.T) midStepStore) {
		for _, tc := range userEnds {
			t.Run(tc.name, func(t *testing.T) {
				m := newMidStepModel(t)
				st := open(t)
				_, a, ctx := startMidStep(t, st, m)
				var res protocol.MessageSendResult
				call(ctx, t, a, protocol.MethodMessageSend, map[string]any{"client_id": "c1", "content": map[string]string{"text": "hi"}}, &res)
				endWhileStreaming(ctx, t, st, a, m, tc.method, res.SessionID, res.TurnID, true)
			})
		}
	})
}

// The same while the worker streams a turn it took over from a node that died
// mid-step, after the dead node's lease expired: the takeover closed the dead
// node's message, and the user's call closes the worker's.
func TestUserEndsATurnTakenOverFromADeadNode(t *testing.T) {
	bothStores(t, func(t *testing.T, open func(*testing.T) midStepStore) {
		for _, tc := range userEnds {
			t.Run(tc.name, func(t *testing.T) {
				m := newMidStepModel(t)
				st := open(t)
				r, a, ctx := startMidStep(t, st, m)
				res, deadMsg := deadStreamer(ctx, t, st, r.parts, "half a sentence", time.Millisecond)
				r.Wake(nil) // the runner's poll would come too
				endWhileStreaming(ctx, t, st, a, m, tc.method, res.SessionID, res.TurnID, true)
				err := st.Read(ctx, func(tx store.Tx) error {
					msg, err := tx.MessageGet(deadMsg)
					if err == nil && (msg.Status != protocol.MessageInterrupted || msg.Text != "half a sentence") {
						t.Errorf("dead node's message: %s %q, want interrupted with its text", msg.Status, msg.Text)
					}
					return err
				})
				if err != nil {
					t.Fatal(err)
				}
			})
		}
	})
}

func TestUserEndsATurnWhoseWorkerLostTheLease(t *testing.T) {
	for _, tc := range userEnds {
		t.Run(tc.name, func(t *testing.T) {
			st := openStalling(t)
			m := newMidStepModel(t)
			_, a, ctx := startMidStep(t, st, m)
			var res protocol.MessageSendResult
			call(ctx, t, a, protocol.MethodMessageSend, map[string]any{"client_id": "c1", "content": map[string]string{"text": "hi"}}, &res)
			select {
			case <-m.entered:
			case <-time.After(10 * time.Second):
				t.Fatal("the model step did not start")
			}
			m.entered <- struct{}{} // for endWhileStreaming
			// The worker stalls past its lease and its node's liveness; another
			// node takes the session (and would resume the turn).
			st.stall(ctx, t, res.SessionID)
			endWhileStreaming(ctx, t, st, a, m, tc.method, res.SessionID, res.TurnID, false)
		})
	}
}
