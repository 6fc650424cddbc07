package session

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rtcagent/rtcagent/internal/core"
	"github.com/rtcagent/rtcagent/internal/llm"
	"github.com/rtcagent/rtcagent/internal/protocol"
	"github.com/rtcagent/rtcagent/internal/store"
	"github.com/rtcagent/rtcagent/internal/store/sqlitestore"
	"github.com/rtcagent/rtcagent/internal/testkit/testsvc"
)

// With every drain slot taken, a drain's last transaction claims the session
// that waited longest: the slot passes on with no claim pass reading the inbox
// and no transaction of its own to take the lease. Without SoleWriter the
// runner reads the inbox and claims each waiting session in a write of its own.
func TestDrainHandsItsSlotOn(t *testing.T) {
	run := func(soleWriter bool) sqlitestore.Counts {
		st := testsvc.SQLite(t)
		gate := make(chan struct{})
		entered := make(chan struct{}, 8)
		// Turns are seen completing in the commits, so waiting reads nothing.
		completed := make(chan string, 8)
		r, ctx := startRunner(t, Config{Store: st, Model: gatedModel{helloModel(t), gate, entered}, PollInterval: time.Hour,
			Concurrency: 1, SoleWriter: soleWriter},
			func(r *Runner) {
				st.SetCommitHook(func(c store.Commit) {
					if len(c.Wake) > 0 { // as the server calls it: no wake-up, no pass
						r.Wake(c.Wake)
					}
					for _, u := range c.Updates {
						for _, ch := range u.Changes {
							if tr, ok := ch.Value.(*protocol.Turn); ok && tr.Status == protocol.TurnCompleted {
								completed <- tr.ID
							}
						}
					}
				})
			})
		sendWhileTheFirstWaits(ctx, t, st, entered, "u1", "u2", "u3")
		waitFor(t, "the other sessions to wait", func() bool {
			r.mu.Lock()
			defer r.mu.Unlock()
			return r.waiting.len() == 2 || r.backlog
		})
		before := st.Counts()
		close(gate)
		for range 3 {
			select {
			case <-completed:
			case <-time.After(10 * time.Second):
				t.Fatal("the turns did not complete")
			}
		}
		return st.Counts().Sub(before)
	}
	off, on := run(false), run(true)
	t.Logf("without SoleWriter %+v, with %+v", off, on)
	if d := off.Writes - on.Writes; d != 2 {
		t.Errorf("handing the slot on saved %d writes (%d → %d), want 2: the claims of u2 and u3", d, off.Writes, on.Writes)
	}
	if d := off.Reads - on.Reads; d < 2 {
		t.Errorf("handing the slot on saved %d reads (%d → %d), want 2 or more: the claim passes for u2 and u3", d, off.Reads, on.Reads)
	}
}

// A hand-off whose transaction rolls back leaves no lease and no reservation:
// the session waits first in line again, and once a slot frees, the pass it
// asks for starts it.
func TestHandOffRolledBackWaitsAgain(t *testing.T) {
	st := testsvc.SQLite(t)
	r, ctx := startRunner(t, Config{Store: st, Model: helloModel(t), PollInterval: time.Hour, SoleWriter: true, Concurrency: 1})
	// The only slot is the drain's that hands it on: no claim pass starts
	// the session meanwhile.
	if ok, _ := r.reserve("other"); !ok {
		t.Fatal("reserve")
	}
	var turn string
	err := st.Write(ctx, func(tx store.Tx) error {
		res, err := core.SendMessage(tx, core.Caller{UserID: "u", DeviceID: "d"}, &protocol.MessageSendRequest{ClientID: "c", Content: protocol.MessageContent{Text: "hi"}})
		if err == nil {
			turn = res.TurnID
		}
		return err // not adopted and no wake-up: only the hand-off knows of it
	})
	if err != nil {
		t.Fatal(err)
	}
	var sid string
	_ = st.Read(ctx, func(tx store.Tx) error { tr, err := tx.TurnGet(turn); sid = tr.SessionID; return err })
	r.mu.Lock()
	r.waiting.push(sid)
	r.mu.Unlock()

	boom := errors.New("rolled back")
	var h *handoff
	err = st.Write(ctx, func(tx store.Tx) error {
		var err error
		if h, err = r.handOff(tx, "other"); err != nil {
			return err
		}
		if h == nil || h.id != sid {
			t.Errorf("the hand-off claimed %+v, want session %s", h, sid)
		}
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatal(err)
	}
	r.cancel(h, true)
	r.mu.Lock()
	waits, active := r.waiting.in[sid], r.active[sid]
	r.mu.Unlock()
	if !waits || active {
		t.Fatalf("after the rollback the session waits %v, is reserved %v", waits, active)
	}
	// The slot frees: the pass claims it (no poll runs here).
	r.endReservation("other")
	waitCompleted(ctx, t, st, turn)
}

func TestWaitQueueKeepsOrder(t *testing.T) {
	var q waitQueue
	for _, id := range []string{"a", "b", "c", "b"} {
		q.push(id)
	}
	q.remove("b")
	q.putFirst([]string{"d", "c"})
	var got []string
	for id, ok := q.pop(); ok; id, ok = q.pop() {
		got = append(got, id)
	}
	if want := "d c a"; strings.Join(got, " ") != want {
		t.Fatalf("order %q, want %q", got, want)
	}
	if q.len() != 0 {
		t.Fatalf("%d left", q.len())
	}
}

// A hand-off whose claim fails does not fail the work of the drain that
// ends: its transaction runs again without the claim (the model is not asked
// again), and the session it could not claim is claimed by itself after.
func TestHandOffThatFailsLeavesTheWorkDone(t *testing.T) {
	st := testsvc.SQLite(t)
	gate := make(chan struct{})
	entered := make(chan struct{}, 8)
	var streams atomic.Int32
	failing := &failOnce{Store: st}
	_, ctx := startRunner(t, Config{Store: failing, Model: countedModel{gatedModel{helloModel(t), gate, entered}, &streams},
		PollInterval: time.Hour, Concurrency: 1, SoleWriter: true},
		func(r *Runner) { st.SetCommitHook(func(c store.Commit) { r.Wake(c.Wake) }) })
	turns := sendWhileTheFirstWaits(ctx, t, st, entered, "u1", "u2")
	var s2 string
	_ = st.Read(ctx, func(tx store.Tx) error { tr, err := tx.TurnGet(turns[1]); s2 = tr.SessionID; return err })
	failing.session.Store(&s2)
	close(gate)
	for _, id := range turns {
		waitCompleted(ctx, t, st, id)
	}
	if !failing.failed.Load() {
		t.Fatal("no hand-off was tried")
	}
	if n := streams.Load(); n != 2 {
		t.Fatalf("the model was asked %d times for two one-step turns", n)
	}
}

// failOnce is a store whose first lease taken for session (once set) fails.
type failOnce struct {
	store.Store
	session atomic.Pointer[string]
	failed  atomic.Bool
}

func (f *failOnce) Write(ctx context.Context, fn func(tx store.Tx) error) error {
	return f.Store.Write(ctx, func(tx store.Tx) error { return fn(failingTx{tx, f}) })
}

type failingTx struct {
	store.Tx
	f *failOnce
}

func (t failingTx) LeaseAcquire(sessionID, holder string, ttl time.Duration) (store.Lease, error) {
	if s := t.f.session.Load(); s != nil && *s == sessionID && t.f.failed.CompareAndSwap(false, true) {
		return store.Lease{}, errors.New("the store failed")
	}
	return t.Tx.LeaseAcquire(sessionID, holder, ttl)
}

// countedModel counts the streams it starts.
type countedModel struct {
	llm.Model
	n *atomic.Int32
}

func (m countedModel) Stream(ctx context.Context, req *llm.Request) (llm.Stream, error) {
	m.n.Add(1)
	return m.Model.Stream(ctx, req)
}

// sendWhileTheFirstWaits sends a message as each user, in a session of its
// own, and returns their turns; after the first it waits until that turn's
// step entered the (gated) model, so it holds the only drain slot.
func sendWhileTheFirstWaits(ctx context.Context, t *testing.T, st store.Store, entered <-chan struct{}, users ...string) []string {
	t.Helper()
	var turns []string
	for i, u := range users {
		err := st.Write(ctx, func(tx store.Tx) error {
			res, err := core.SendMessage(tx, core.Caller{UserID: u, DeviceID: "d"}, &protocol.MessageSendRequest{ClientID: "c-" + u, Content: protocol.MessageContent{Text: "hi"}})
			if err == nil {
				turns = append(turns, res.TurnID)
			}
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		if i == 0 {
			<-entered
		}
	}
	return turns
}
