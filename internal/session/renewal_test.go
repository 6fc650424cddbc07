package session

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rtcagent/rtcagent/internal/llm"
	"github.com/rtcagent/rtcagent/internal/store"
	"github.com/rtcagent/rtcagent/internal/store/sqlitestore"
	"github.com/rtcagent/rtcagent/internal/testkit/testsvc"
)

// blockedModel waits in its step until the step's context ends, and says so.
type blockedModel struct {
	llm.Model
	entered chan struct{}
	ended   chan struct{}
}

func (m blockedModel) Stream(ctx context.Context, req *llm.Request) (llm.Stream, error) {
	m.entered <- struct{}{}
	<-ctx.Done()
	close(m.ended)
	return nil, ctx.Err()
}

// A drain whose lease renewal finds the lease lost (another node took it
// once it expired) stops its model step: the renewal cancels the drain.
func TestRenewalThatFindsTheLeaseLostStopsTheDrain(t *testing.T) {
	st := openStalling(t)
	m := blockedModel{Model: helloModel(t), entered: make(chan struct{}, 1), ended: make(chan struct{})}
	r, ctx := startRunner(t, Config{Store: st, Model: m, PollInterval: time.Hour, Concurrency: 1, SoleWriter: true,
		LeaseTTL: 300 * time.Millisecond},
		func(r *Runner) { st.SetCommitHook(func(c store.Commit) { r.Wake(c.Wake) }) })
	res, _ := sendAdopting(ctx, t, st, r, "u1")
	select {
	case <-m.entered:
	case <-time.After(10 * time.Second):
		t.Fatal("the model step did not start")
	}
	st.stall(ctx, t, res.SessionID)
	select {
	case <-m.ended:
	case <-time.After(10 * time.Second):
		t.Fatal("the model step went on after the lease was lost")
	}
}

// stallingStore is a SQLite store whose clock stall moves an hour on: its
// worker seems to have stalled past its lease and its node's liveness.
type stallingStore struct {
	*sqlitestore.Store
	skew atomic.Int64
}

func openStalling(t *testing.T) *stallingStore {
	t.Helper()
	s := &stallingStore{}
	s.Store = testsvc.SQLiteWith(t, sqlitestore.Options{Now: func() time.Time { return time.Now().Add(time.Duration(s.skew.Load())) }})
	return s
}

// stall moves the clock an hour on and has another node take the session's
// lease, expired by then (that node would resume the turn).
func (s *stallingStore) stall(ctx context.Context, t *testing.T, sessionID string) {
	t.Helper()
	s.skew.Store(int64(time.Hour))
	err := s.Write(ctx, func(tx store.Tx) error {
		_, err := tx.LeaseAcquire(sessionID, "node-b", time.Hour)
		return err
	})
	if err != nil {
		t.Fatalf("another node takes the expired lease: %v", err)
	}
}
