package session

import (
	"context"
	"testing"
	"time"

	"github.com/rtcagent/rtcagent/internal/core"
	"github.com/rtcagent/rtcagent/internal/protocol"
	"github.com/rtcagent/rtcagent/internal/store"
	"github.com/rtcagent/rtcagent/internal/store/pgstore"
	"github.com/rtcagent/rtcagent/internal/testkit/testsvc"
)

// Work committed on one node wakes a runner on another through PostgreSQL's
// notifications: node B (a store with no runner, so nobody adopts the work)
// sends a message; node A, whose poll is an hour, claims the session and ends
// the turn. B notified, and A's listener heard it.
func TestNotifiedClaimAcrossNodes(t *testing.T) {
	stA, stB := twoNodes(t)
	r, ctx := startRunner(t, Config{Store: stA, Model: helloModel(t), PollInterval: time.Hour})
	listen(ctx, t, stA, r)

	sent0, received0 := pgstore.NotifyCounts()
	res := send(ctx, t, stB, &protocol.MessageSendRequest{ClientID: "n1", Content: protocol.MessageContent{Text: "hi"}})
	waitCompleted(ctx, t, stA, res.TurnID)
	sent, received := pgstore.NotifyCounts()
	if sent-sent0 < 1 || received-received0 < 1 {
		t.Fatalf("notifications sent %d, received %d", sent-sent0, received-received0)
	}
}

// A node that stops mid-step gives the session's lease back, which tells the
// other nodes, and as it leaves asks them to look at the ready queue: node
// B, whose poll is an hour, takes the turn over and ends it.
func TestStoppedNodeHandsItsWorkOver(t *testing.T) {
	stA, stB := twoNodes(t)
	entered := make(chan struct{}, 1)
	a := New(Config{Store: stA, Live: nopLive{}, Model: gatedModel{helloModel(t), make(chan struct{}), entered}, PollInterval: time.Hour})
	actx, stopA := context.WithCancel(context.Background())
	aDone := make(chan struct{})
	go func() { defer close(aDone); a.Run(actx) }()
	t.Cleanup(func() { stopA(); <-aDone })
	waitRunning(t, a)

	b, ctx := startRunner(t, Config{Store: stB, Model: helloModel(t), PollInterval: time.Hour})
	listen(ctx, t, stB, b)

	res, adopted := sendAdopting(ctx, t, stA, a, caller.UserID)
	if !adopted {
		t.Fatal("A did not adopt the message")
	}
	<-entered // A's step is in the model
	stopA()
	<-aDone
	waitCompleted(ctx, t, stB, res.TurnID)
}

// A lease given back with work left tells the other nodes with its commit:
// node B, idle, whose poll is an hour and which passed over the session while
// it was held, takes it at once and ends its turn.
func TestLeaseGivenBackWithWorkNotifies(t *testing.T) {
	stA, stB := twoNodes(t)
	ctx := context.Background()
	var res *protocol.MessageSendResult
	var lease store.Lease
	err := stA.Write(ctx, func(tx store.Tx) error {
		var err error
		if err = tx.NodeBeat("holder A", time.Hour); err != nil {
			return err
		}
		if res, err = core.SendMessage(tx, caller, &protocol.MessageSendRequest{ClientID: "g1", Content: protocol.MessageContent{Text: "hi"}}); err != nil {
			return err
		}
		lease, err = tx.LeaseAcquire(res.SessionID, "holder A", time.Hour) // held: nobody is told of the work
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	b, bctx := startRunner(t, Config{Store: stB, Model: helloModel(t), PollInterval: time.Hour})
	listen(bctx, t, stB, b)
	if err := stA.Write(ctx, func(tx store.Tx) error { return tx.LeaseRelease(lease) }); err != nil {
		t.Fatal(err)
	}
	waitCompleted(bctx, t, stB, res.TurnID)
}

// A node with every slot taken adopts nothing: the work goes to a node with a
// slot free (the write's notification), which ends the turn while the first
// node's only slot is still held. Adopted, it would wait here under its
// lease, kept from the idle node.
func TestBusyNodeLeavesWorkToAnIdleOne(t *testing.T) {
	stA, stB := twoNodes(t)
	gate, entered := make(chan struct{}), make(chan struct{}, 1)
	t.Cleanup(func() { close(gate) })
	// B first: A sees it when it starts, so it is not alone.
	b, _ := startRunner(t, Config{Store: stB, Model: helloModel(t), PollInterval: time.Hour, Concurrency: 1})
	a, ctx := startRunner(t, Config{Store: stA, Model: gatedModel{helloModel(t), gate, entered}, PollInterval: time.Hour, Concurrency: 1})
	stA.SetCommitHook(func(c store.Commit) { a.Wake(c.Wake) })
	listen(ctx, t, stB, b)

	if _, ok := sendAdopting(ctx, t, stA, a, "u1"); !ok {
		t.Fatal("the first message was not adopted")
	}
	<-entered // A's only slot is held
	res, adopted := sendAdopting(ctx, t, stA, a, "u2")
	if adopted {
		t.Error("a node with no slot free adopted a session")
	}
	waitCompleted(ctx, t, stB, res.TurnID)
}

// A node that sees no other node alive adopts past its slots, its drains
// waiting for the slot under their sessions' leases. Once another node
// starts, the drains give their leases back (together: release.go), and the
// other node, told with that commit, ends their turns while the first node's
// only slot is still held.
func TestNodeThatSeesAnotherGivesBackWaitingSessions(t *testing.T) {
	stA, stB := twoNodes(t)
	gate, entered := make(chan struct{}), make(chan struct{}, 1)
	t.Cleanup(func() { close(gate) })
	const nodeTTL = 300 * time.Millisecond // a renewal every 100 ms
	a, ctx := startRunner(t, Config{Store: stA, Model: gatedModel{helloModel(t), gate, entered}, PollInterval: time.Hour, Concurrency: 1, NodeTTL: nodeTTL})
	stA.SetCommitHook(func(c store.Commit) { a.Wake(c.Wake) })
	if _, ok := sendAdopting(ctx, t, stA, a, "u1"); !ok {
		t.Fatal("the first message was not adopted")
	}
	<-entered // A's only slot is held
	var turns []string
	for _, user := range []string{"u2", "u3", "u4"} {
		res, adopted := sendAdopting(ctx, t, stA, a, user)
		if !adopted {
			t.Fatal("a node alone did not adopt past its slots")
		}
		if s := turnStatus(ctx, t, stA, res.TurnID); s != protocol.TurnRunning {
			t.Fatalf("the adopted turn is %s, want running (waiting for A's slot)", s)
		}
		turns = append(turns, res.TurnID)
	}
	b, _ := startRunner(t, Config{Store: stB, Model: helloModel(t), PollInterval: time.Hour, Concurrency: 1, NodeTTL: time.Hour})
	listen(ctx, t, stB, b)
	for _, id := range turns {
		waitCompleted(ctx, t, stB, id)
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.pastSlots() {
		t.Error("A still adopts past its slots with B alive")
	}
}

// A transaction that takes the lease of the session it gives work (the API's
// adoption) notifies nobody: the work starts on its own node.
func TestAdoptedWorkNotNotified(t *testing.T) {
	st := openPGStore(t)
	r, ctx := startRunner(t, Config{Store: st, Model: helloModel(t), PollInterval: time.Hour})
	st.SetCommitHook(func(c store.Commit) { r.Wake(c.Wake) })
	sent0, _ := pgstore.NotifyCounts()
	res, adopted := sendAdopting(ctx, t, st, r, caller.UserID)
	if !adopted {
		t.Fatal("nothing adopted")
	}
	waitCompleted(ctx, t, st, res.TurnID)
	if sent, _ := pgstore.NotifyCounts(); sent != sent0 {
		t.Fatalf("%d notifications sent for adopted work", sent-sent0)
	}
}

// twoNodes opens two stores on one fresh schema, as two nodes would.
func twoNodes(t *testing.T) (*pgstore.Store, *pgstore.Store) {
	url := testsvc.PostgresURL(t)
	schema := testsvc.Schema(t, url)
	open := func() *pgstore.Store {
		st, err := pgstore.Open(context.Background(), url, pgstore.Options{Schema: schema})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		return st
	}
	return open(), open()
}

// listen wakes r with st's commits and notifications until the test ends. It
// returns once st listens and the claim pass its listener asked for when it
// started ended (it finds no work), so a wake-up after it comes from a
// notification.
func listen(ctx context.Context, t *testing.T, st *pgstore.Store, r *Runner) {
	t.Helper()
	st.SetCommitHook(func(c store.Commit) { r.Wake(c.Wake) })
	lctx, stop := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() { defer close(done); st.Listen(lctx, r.Wake) }()
	t.Cleanup(func() { stop(); <-done })
	waitFor(t, "the listener", st.Listening)
	waitFor(t, "the runner idle", func() bool { return len(r.wake) == 0 })
}
