package session

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/rtcagent/rtcagent/internal/core"
	"github.com/rtcagent/rtcagent/internal/lifecycle"
	"github.com/rtcagent/rtcagent/internal/llm"
	"github.com/rtcagent/rtcagent/internal/protocol"
	"github.com/rtcagent/rtcagent/internal/store"
	"github.com/rtcagent/rtcagent/internal/store/sqlitestore"
	"github.com/rtcagent/rtcagent/internal/testkit/testsvc"
)

// With every drain slot taken, a sole writer still adopts the sessions a
// write gives work: their leases and first items are taken in that write, and
// their drains wait in memory for the slot. So does a node of a cluster that
// sees no other node alive. Where another node may drain sessions, a node
// adopts only with a slot free (a lease held while waiting would keep the
// session from a node with one), and the work is left to a claim: a read of
// the inbox, and a write with a Topic update of its own.
func TestSoleWriterAdoptsPastItsSlots(t *testing.T) {
	type counts struct {
		sqlitestore.Counts
		updates int64 // Topic updates committed, the messages' sends on
	}
	const cluster, alone, soleWriter = "a node of a cluster", "a node alone", "a sole writer"
	run := func(mode string) counts {
		var updates atomic.Int64
		st := testsvc.SQLite(t)
		if mode == cluster {
			otherNodeAlive(t, st)
		}
		gate := make(chan struct{})
		entered := make(chan struct{}, 8)
		// Turns are seen completing in the commits, so waiting reads nothing.
		completed := make(chan string, 8)
		// The liveness record is renewed once, at the start: a renewal (a
		// write) inside the counted window would count as adoption's.
		r, ctx := startRunner(t, Config{Store: st, Model: gatedModel{helloModel(t), gate, entered}, PollInterval: time.Hour,
			Concurrency: 1, SoleWriter: mode == soleWriter, NodeTTL: time.Hour},
			func(r *Runner) {
				st.SetCommitHook(func(c store.Commit) {
					r.Committed(c.Updates) // as the server calls them: no wake-up, no pass
					updates.Add(int64(len(c.Updates)))
					if len(c.Wake) > 0 {
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
		turns := sendAdopted(ctx, t, st, r, entered, "u1", "u2", "u3")
		want := protocol.TurnRunning // adopted, waiting for the slot
		if mode == cluster {
			want = protocol.TurnQueued // left to a claim, which waits for the slot before its lease
			waitFor(t, "the claim to wait", func() bool { r.mu.Lock(); defer r.mu.Unlock(); return r.claimWaiting == 1 })
		}
		for i, id := range turns[1:] {
			if s := turnStatus(ctx, t, st, id); s != want {
				t.Errorf("%s: turn %d waiting for the slot is %s, want %s", mode, i+2, s, want)
			}
		}
		if n := testutil.ToFloat64(metricActive); n != 1 {
			t.Errorf("%v drain slots taken, want the one there is", n)
		}
		before := st.Counts()
		close(gate)
		for range turns {
			select {
			case <-completed:
			case <-time.After(10 * time.Second):
				t.Fatalf("%s: the turns did not complete", mode)
			}
		}
		return counts{st.Counts().Sub(before), updates.Load()}
	}
	off, on, lone := run(cluster), run(soleWriter), run(alone)
	t.Logf("%s %+v, %s %+v, %s %+v", cluster, off, soleWriter, on, alone, lone)
	if lone.Writes != on.Writes || lone.updates != on.updates {
		t.Errorf("%s wrote %d times with %d Topic updates, %s %d with %d", alone, lone.Writes, lone.updates, soleWriter, on.Writes, on.updates)
	}
	if d := off.Writes - on.Writes; d != 2 {
		t.Errorf("adopting past the slots saved %d writes (%d → %d), want 2: the claims of u2 and u3", d, off.Writes, on.Writes)
	}
	if d := off.updates - on.updates; d != 2 {
		t.Errorf("adopting past the slots saved %d Topic updates (%d → %d), want 2: the takes of u2 and u3", d, off.updates, on.updates)
	}
	if on.Reads != 0 {
		t.Errorf("the sole writer read %d times, want none: no claim pass reads the inbox", on.Reads)
	}
}

// A drain waiting for its slot renews its lease meanwhile: once the slot
// frees, long after the lease's first term ended, the turn goes on without
// a claim of its own (no poll runs here) and its model step runs once.
func TestWaitingForASlotKeepsTheLease(t *testing.T) {
	st := testsvc.SQLite(t)
	gate := make(chan struct{})
	entered := make(chan struct{}, 8)
	var streams atomic.Int32
	ttl := 150 * time.Millisecond
	r, ctx := startRunner(t, Config{Store: st, Model: countedModel{gatedModel{helloModel(t), gate, entered}, &streams},
		PollInterval: time.Hour, Concurrency: 1, SoleWriter: true, LeaseTTL: ttl},
		func(r *Runner) { st.SetCommitHook(func(c store.Commit) { r.Wake(c.Wake) }) })
	turns := sendAdopted(ctx, t, st, r, entered, "u1", "u2")
	time.Sleep(4 * ttl)
	close(gate)
	for _, id := range turns {
		waitCompleted(ctx, t, st, id)
	}
	if n := streams.Load(); n != 2 {
		t.Fatalf("the model was asked %d times for two one-step turns", n)
	}
}

// A turn stopped while its drain waits for a slot is not run: the stop ends
// the wait (CancelTurn), and the drain takes the item again, which drops it.
// So too when the stop lands after the write that adopted the turn committed
// but before its drain started to wait. The model is asked once, for the
// turn that held the slot.
func TestStopWhileWaitingForASlotSkipsTheModel(t *testing.T) {
	for _, before := range []bool{false, true} {
		t.Run(fmt.Sprintf("stop before the wait %v", before), func(t *testing.T) {
			st := testsvc.SQLite(t)
			gate := make(chan struct{})
			entered := make(chan struct{}, 8)
			var streams atomic.Int32
			r, ctx := startRunner(t, Config{Store: st, Model: countedModel{gatedModel{helloModel(t), gate, entered}, &streams},
				PollInterval: time.Hour, Concurrency: 1, SoleWriter: true},
				func(r *Runner) { st.SetCommitHook(func(c store.Commit) { r.Wake(c.Wake) }) })
			turns := sendAdopted(ctx, t, st, r, entered, "u1")
			var adopted func(bool)
			err := st.Write(ctx, func(tx store.Tx) error {
				res, err := core.SendMessage(tx, core.Caller{UserID: "u2", DeviceID: "d"}, &protocol.MessageSendRequest{ClientID: "c-u2", Content: protocol.MessageContent{Text: "hi"}})
				if err != nil {
					return err
				}
				turns = append(turns, res.TurnID)
				adopted, err = r.Adopt(tx)
				return err
			})
			if err != nil || adopted == nil {
				t.Fatalf("adopt: %v", err)
			}
			if !before {
				adopted(true)
				waitFor(t, "the second drain to wait", func() bool { return testutil.ToFloat64(metricWaiting) == 1 })
			}
			var sid string
			err = st.Write(ctx, func(tx store.Tx) error {
				tr, err := tx.TurnGet(turns[1])
				if err != nil {
					return err
				}
				sid = tr.SessionID
				_, _, err = lifecycle.StopTurn(tx, core.Caller{UserID: "u2", DeviceID: "d"}, sid, nil)
				return err
			})
			if err != nil {
				t.Fatal(err)
			}
			r.CancelTurn(turns[1])
			if before {
				adopted(true)
			}
			// The drain drops the item without a slot. (Woken by the stop
			// while drained, the session is claimed again once it ends, and
			// that claim waits for the slot to find nothing to do.)
			waitFor(t, "the stopped turn's item to be dropped", func() bool {
				err := st.Read(ctx, func(tx store.Tx) error { _, err := tx.InboxNext(sid); return err })
				return errors.Is(err, store.ErrNotFound)
			})
			close(gate)
			waitCompleted(ctx, t, st, turns[0])
			waitFor(t, "the drains to end", func() bool {
				r.mu.Lock()
				defer r.mu.Unlock()
				return len(r.active) == 0
			})
			if s := turnStatus(ctx, t, st, turns[1]); s != protocol.TurnStopped {
				t.Errorf("the stopped turn is %s", s)
			}
			if n := streams.Load(); n != 1 {
				t.Fatalf("the model was asked %d times, want once: the stopped turn ran", n)
			}
		})
	}
}

// A session a sole writer's claim pass starts (no write adopted it) waits for
// its slot before it takes its lease: its turn stays queued meanwhile, and a
// pass starts no more such drains than there are slots (the rest wait in
// memory, without a goroutine or a lease).
func TestClaimedSessionWaitsBeforeItsLease(t *testing.T) {
	st := testsvc.SQLite(t)
	gate := make(chan struct{})
	entered := make(chan struct{}, 8)
	r, ctx := startRunner(t, Config{Store: st, Model: gatedModel{helloModel(t), gate, entered}, PollInterval: time.Hour,
		Concurrency: 1, SoleWriter: true},
		func(r *Runner) { st.SetCommitHook(func(c store.Commit) { r.Wake(c.Wake) }) })
	turns := sendAdopted(ctx, t, st, r, entered, "u1")
	for _, u := range []string{"u2", "u3"} {
		err := st.Write(ctx, func(tx store.Tx) error {
			res, err := core.SendMessage(tx, core.Caller{UserID: u, DeviceID: "d"}, &protocol.MessageSendRequest{ClientID: "c-" + u, Content: protocol.MessageContent{Text: "hi"}})
			if err == nil {
				turns = append(turns, res.TurnID)
			}
			return err // not adopted: the commit's wake-up starts it
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	waitFor(t, "a claimed drain to wait", func() bool { return testutil.ToFloat64(metricWaiting) == 1 })
	r.mu.Lock()
	claimed, waiting := r.claimWaiting, r.waiting.len()
	r.mu.Unlock()
	if claimed != 1 || waiting != 1 {
		t.Errorf("%d claimed drains wait for the one slot and %d sessions in memory, want 1 and 1", claimed, waiting)
	}
	for _, id := range turns[1:] {
		if s := turnStatus(ctx, t, st, id); s != protocol.TurnQueued {
			t.Errorf("a turn waiting for a slot without an adoption is %s, want queued", s)
		}
	}
	close(gate)
	for _, id := range turns {
		waitCompleted(ctx, t, st, id)
	}
}

// A drain waiting for its slot when the runner stops gives its lease back and
// leaves its item in the inbox, for the next start.
func TestStopWhileWaitingForASlot(t *testing.T) {
	st := testsvc.SQLite(t)
	gate := make(chan struct{})
	entered := make(chan struct{}, 8)
	r := New(Config{Store: st, Live: nopLive{}, Model: gatedModel{helloModel(t), gate, entered}, PollInterval: time.Hour,
		Concurrency: 1, SoleWriter: true})
	st.SetCommitHook(func(c store.Commit) { r.Wake(c.Wake) })
	ctx, cancel := context.WithCancel(context.Background())
	ran := make(chan struct{})
	go func() { r.Run(ctx); close(ran) }()
	waitRunning(t, r)
	turns := sendAdopted(context.Background(), t, st, r, entered, "u1", "u2")
	cancel()
	select {
	case <-ran:
	case <-time.After(10 * time.Second):
		t.Fatal("the runner did not stop with a drain waiting for a slot")
	}
	var sid string
	err := st.Read(context.Background(), func(tx store.Tx) error {
		tr, err := tx.TurnGet(turns[1])
		sid = tr.SessionID
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	err = st.Write(context.Background(), func(tx store.Tx) error {
		if _, err := tx.InboxNext(sid); err != nil {
			return fmt.Errorf("the waiting turn's item: %w", err)
		}
		l, err := tx.LeaseAcquire(sid, "next", time.Minute)
		if err == nil {
			err = tx.LeaseRelease(l)
		}
		return err
	})
	if err != nil {
		t.Fatalf("after the stop: %v", err)
	}
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

// countedModel counts the streams it starts.
type countedModel struct {
	llm.Model
	n *atomic.Int32
}

func (m countedModel) Stream(ctx context.Context, req *llm.Request) (llm.Stream, error) {
	m.n.Add(1)
	return m.Model.Stream(ctx, req)
}

// sendAdopted sends a message as each user, in a session of its own, in a
// write that adopts it, and returns their turns; after the first it waits
// until that turn's step entered the (gated) model, so it holds the only drain
// slot.
func sendAdopted(ctx context.Context, t *testing.T, st store.Store, r *Runner, entered <-chan struct{}, users ...string) []string {
	t.Helper()
	var turns []string
	for i, u := range users {
		res, _ := sendAdopting(ctx, t, st, r, u)
		turns = append(turns, res.TurnID)
		if i == 0 {
			<-entered
		}
	}
	return turns
}

// sendAdopting sends user's message in a write on st that r adopts from;
// it reports whether r adopted it.
func sendAdopting(ctx context.Context, t *testing.T, st store.Store, r *Runner, user string) (*protocol.MessageSendResult, bool) {
	t.Helper()
	var res *protocol.MessageSendResult
	var adopted func(bool)
	err := st.Write(ctx, func(tx store.Tx) error {
		var err error
		if res, err = core.SendMessage(tx, core.Caller{UserID: user, DeviceID: "d"}, &protocol.MessageSendRequest{ClientID: "c-" + user, Content: protocol.MessageContent{Text: "hi"}}); err != nil {
			return err
		}
		adopted, err = r.Adopt(tx)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if adopted != nil {
		adopted(true)
	}
	return res, adopted != nil
}

func turnStatus(ctx context.Context, t *testing.T, st store.Store, id string) string {
	t.Helper()
	var turn *protocol.Turn
	if err := st.Read(ctx, func(tx store.Tx) error { var err error; turn, err = tx.TurnGet(id); return err }); err != nil {
		t.Fatal(err)
	}
	return turn.Status
}
