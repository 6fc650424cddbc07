package session

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/rtcagent/rtcagent/internal/core"
	"github.com/rtcagent/rtcagent/internal/llm"
	"github.com/rtcagent/rtcagent/internal/llm/scripted"
	"github.com/rtcagent/rtcagent/internal/protocol"
	"github.com/rtcagent/rtcagent/internal/store"
	"github.com/rtcagent/rtcagent/internal/testkit/testsvc"
)

// A write that gives a session work and adopts it starts the work by itself: the
// runner is never woken and never polls here. An adoption whose transaction rolls
// back leaves no lease and no worker behind, so the next one starts the session.
func TestAdoptStartsWorkWithoutAClaim(t *testing.T) {
	st := testsvc.SQLite(t)
	r, ctx := startRunner(t, Config{Store: st, Model: helloModel(t), PollInterval: time.Hour})

	caller := core.Caller{UserID: "u", DeviceID: "d"}
	send := func(clientID string, fail error) (*protocol.MessageSendResult, error) {
		var res *protocol.MessageSendResult
		var adopted func(bool)
		err := st.Write(ctx, func(tx store.Tx) error {
			var err error
			if res, err = core.SendMessage(tx, caller, &protocol.MessageSendRequest{ClientID: clientID, Content: protocol.MessageContent{Text: "hi"}}); err != nil {
				return err
			}
			if adopted, err = r.Adopt(tx); err != nil {
				return err
			}
			if adopted == nil {
				return errors.New("nothing adopted")
			}
			return fail
		})
		if adopted != nil {
			adopted(err == nil)
		}
		return res, err
	}

	boom := errors.New("rolled back")
	if _, err := send("c1", boom); !errors.Is(err, boom) {
		t.Fatalf("send: %v", err)
	}
	res, err := send("c2", nil)
	if err != nil {
		t.Fatal(err)
	}
	waitCompleted(ctx, t, st, res.TurnID)
}

// Where other nodes may drain sessions, with every drain slot taken a write
// adopts nothing: its work is left to a claim, by whichever node has a slot,
// and every turn completes once the slot frees. Claim passes with as many
// claimed drains waiting as there are slots read nothing.
func TestAdoptDeclinesAtCapacity(t *testing.T) {
	st := testsvc.SQLite(t)
	otherNodeAlive(t, st)
	gate := make(chan struct{})
	entered := make(chan struct{}, 8)
	r, ctx := startRunner(t, Config{Store: st, Model: gatedModel{helloModel(t), gate, entered}, PollInterval: time.Hour, Concurrency: 1},
		func(r *Runner) { st.SetCommitHook(func(c store.Commit) { r.Wake(c.Wake) }) })

	var turns []string
	send := func(user string, adopt bool) func(bool) {
		var adopted func(bool)
		var turn string
		err := st.Write(ctx, func(tx store.Tx) error {
			res, err := core.SendMessage(tx, core.Caller{UserID: user, DeviceID: "d"}, &protocol.MessageSendRequest{ClientID: "c-" + user, Content: protocol.MessageContent{Text: "hi"}})
			if err != nil {
				return err
			}
			turn = res.TurnID // assigned, not added: the function may run twice
			if adopt {
				adopted, err = r.Adopt(tx)
			}
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		turns = append(turns, turn)
		return adopted
	}
	send("u1", false) // claimed: takes the only slot, its model step waits at the gate
	<-entered         // its step read its input and called the model
	waitFor(t, "the first turn to take the slot", func() bool { r.mu.Lock(); defer r.mu.Unlock(); return len(r.active) == 1 })
	send("u2", false) // claimed: waits for the slot before taking its lease
	waitFor(t, "the claim to wait", func() bool { r.mu.Lock(); defer r.mu.Unlock(); return r.claimWaiting == 1 })
	reads := st.Counts()
	if adopted := send("u3", true); adopted != nil {
		adopted(true)
		t.Fatal("a write adopted its work with no slot free")
	}
	r.Wake(nil)
	time.Sleep(50 * time.Millisecond) // the passes the wake-ups asked for
	if n := st.Counts().Sub(reads).Reads; n > 0 {
		t.Errorf("claim passes with every claimed drain waiting read the inbox %d times", n)
	}
	close(gate)
	for _, id := range turns {
		waitCompleted(ctx, t, st, id)
	}
}

// gatedModel streams once gate is closed; entered, when set, hears of each
// call as it starts waiting.
type gatedModel struct {
	llm.Model
	gate    chan struct{}
	entered chan struct{}
}

func (m gatedModel) Stream(ctx context.Context, req *llm.Request) (llm.Stream, error) {
	if m.entered != nil {
		select {
		case m.entered <- struct{}{}:
		default:
		}
	}
	select {
	case <-m.gate:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	return m.Model.Stream(ctx, req)
}

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); !cond(); {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func waitCompleted(ctx context.Context, t *testing.T, st store.Store, turnID string) {
	t.Helper()
	waitFor(t, "turn "+turnID+" to complete", func() bool {
		var turn *protocol.Turn
		err := st.Read(ctx, func(tx store.Tx) error { var err error; turn, err = tx.TurnGet(turnID); return err })
		return err == nil && turn.Status == protocol.TurnCompleted
	})
}

type nopLive struct{}

func (nopLive) PublishDelta(string, protocol.Delta) error { return nil }

func (nopLive) PublishCallDelta(string, protocol.CallDelta) error { return nil }

func helloModel(t *testing.T) llm.Model {
	t.Helper()
	m, err := scripted.Parse([]byte(`{"name": "hi", "turns": [{"steps": [{"text": "hello"}]}]}`))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// startRunner runs a runner (set up by the optional before) until the test ends,
// and returns once it accepts adoptions, with a context that ends with the test.
func startRunner(t *testing.T, cfg Config, before ...func(*Runner)) (*Runner, context.Context) {
	t.Helper()
	cfg.Live = nopLive{}
	r := New(cfg)
	for _, f := range before {
		f(r)
	}
	ctx, cancel := context.WithCancel(context.Background())
	ran := make(chan struct{})
	go func() { r.Run(ctx); close(ran) }()
	t.Cleanup(func() { cancel(); <-ran })
	waitRunning(t, r)
	return r, ctx
}

// otherNodeAlive gives st the liveness record of another node, alive for an
// hour: a runner started on st after it is not alone (alone.go).
func otherNodeAlive(t *testing.T, st store.Store) {
	t.Helper()
	if err := st.Write(context.Background(), func(tx store.Tx) error { return tx.NodeBeat("another node", time.Hour) }); err != nil {
		t.Fatal(err)
	}
}

// waitRunning waits until Run accepts adoptions (its first liveness renewal
// done).
func waitRunning(t *testing.T, r *Runner) {
	t.Helper()
	running := func() bool {
		r.mu.Lock()
		defer r.mu.Unlock()
		return r.ctx != nil
	}
	for deadline := time.Now().Add(5 * time.Second); !running(); {
		if time.Now().After(deadline) {
			t.Fatal("the runner did not start")
		}
		time.Sleep(time.Millisecond)
	}
}

// An adoption its transaction's run leaves by unwinding (as a run the store
// ends, to run the function again under its writer) gives back the
// sessions it reserved: the next run of the function adopts the session,
// which does not wait for a claim that never comes.
func TestUnwoundAdoptionGivesItsReservationsBack(t *testing.T) {
	st := testsvc.SQLite(t)
	r, ctx := startRunner(t, Config{Store: st, Model: helloModel(t), PollInterval: time.Hour})
	caller := core.Caller{UserID: "u", DeviceID: "d"}
	var adopted func(bool)
	var res *protocol.MessageSendResult
	err := st.Write(ctx, func(tx store.Tx) error {
		if adopted != nil { // the function runs again: the earlier run did not commit
			adopted(false)
			adopted = nil
		}
		var err error
		if res, err = core.SendMessage(tx, caller, &protocol.MessageSendRequest{ClientID: "c1", Content: protocol.MessageContent{Text: "hi"}}); err != nil {
			return err
		}
		func() {
			defer func() { _ = recover() }()
			_, _ = r.Adopt(unwinding{tx})
		}()
		if adopted, err = r.Adopt(tx); err == nil && adopted == nil {
			return errors.New("nothing adopted: the unwound adoption kept its reservation")
		}
		return err
	})
	if adopted != nil {
		adopted(err == nil)
	}
	if err != nil {
		t.Fatal(err)
	}
	waitCompleted(ctx, t, st, res.TurnID)
}

// unwinding is a transaction whose inbox read unwinds the function.
type unwinding struct{ store.Tx }

func (unwinding) InboxNext(string) (*store.InboxItem, error) { panic("the run ends here") }
