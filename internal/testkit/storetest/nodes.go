package storetest

import (
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/rtcagent/rtcagent/internal/store"
)

// testNodeLiveness: a lease is held for its whole TTL while its holder renews its
// liveness record, and is free (to LeaseAcquire and InboxSessions) as soon as
// the record expired; the stale holder is then fenced off by the bumped token.
func testNodeLiveness(t *testing.T, s store.Store, clock *Clock) {
	const nodeTTL = 3 * time.Second
	beat := func(node string) { write(t, s, func(tx store.Tx) error { return tx.NodeBeat(node, nodeTTL) }) }
	acquire := func(id, holder string) (store.Lease, error) {
		var l store.Lease
		err := s.Write(ctx, func(tx store.Tx) error {
			var err error
			l, err = tx.LeaseAcquire(id, holder, time.Hour)
			return err
		})
		return l, err
	}
	free := func() []string {
		var ids []string
		if err := s.Read(ctx, func(tx store.Tx) error { var err error; ids, err = tx.InboxSessions(10); return err }); err != nil {
			t.Fatal(err)
		}
		return ids
	}
	write(t, s, func(tx store.Tx) error {
		return tx.InboxInsert(&store.InboxItem{SessionID: "s", Kind: "k", TurnID: "t"})
	})

	beat("A")
	a := must(acquire("s", "A"))(t)
	// A live node keeps its long lease however much time passes.
	for range 10 {
		clock.Advance(time.Second)
		beat("A")
		if _, err := acquire("s", "B"); !errors.Is(err, store.ErrConflict) {
			t.Fatalf("B took the lease of a live node: %v", err)
		}
		if ids := free(); len(ids) != 0 {
			t.Fatalf("a live node's session listed as free: %v", ids)
		}
	}
	write(t, s, func(tx store.Tx) error { return tx.LeaseCheck(a) })

	// A stops renewing: within the node TTL its lease is still its own, after it
	// the lease is free although it has most of its hour left.
	clock.Advance(nodeTTL - time.Millisecond)
	if _, err := acquire("s", "B"); !errors.Is(err, store.ErrConflict) {
		t.Fatalf("B took the lease before A's record expired: %v", err)
	}
	clock.Advance(time.Millisecond)
	if ids := free(); fmt.Sprint(ids) != "[s]" {
		t.Fatalf("a dead node's session not listed as free: %v", ids)
	}
	beat("B")
	b := must(acquire("s", "B"))(t)
	if b.Token <= a.Token {
		t.Fatalf("token did not grow on takeover: %d -> %d", a.Token, b.Token)
	}
	// A comes back (a paused process): it is fenced off.
	beat("A")
	if err := s.Write(ctx, func(tx store.Tx) error { return tx.LeaseCheck(a) }); !errors.Is(err, store.ErrLeaseLost) {
		t.Fatalf("stale holder passed the fence: %v", err)
	}
	if err := s.Write(ctx, func(tx store.Tx) error { _, err := tx.LeaseRenew(a, time.Hour); return err }); !errors.Is(err, store.ErrLeaseLost) {
		t.Fatalf("stale holder renewed: %v", err)
	}
	if _, err := acquire("s", "A"); !errors.Is(err, store.ErrConflict) {
		t.Fatalf("A took back B's live lease: %v", err)
	}
	write(t, s, func(tx store.Tx) error { return tx.LeaseCheck(b) })

	// A node whose record expired while nobody took its lease goes on with it
	// once it renews again: nothing was fenced, nothing needs to be.
	write(t, s, func(tx store.Tx) error {
		return tx.InboxInsert(&store.InboxItem{SessionID: "p", Kind: "k", TurnID: "t"})
	})
	p := must(acquire("p", "A"))(t)
	clock.Advance(2 * nodeTTL)
	beat("A")
	beat("B")
	write(t, s, func(tx store.Tx) error { return tx.LeaseCheck(p) })
	if ids := free(); len(ids) != 0 {
		t.Fatalf("sessions of live nodes listed as free: %v", ids)
	}

	// A holder with no liveness record keeps its lease until the lease expires.
	must(acquire("q", "C"))(t)
	clock.Advance(30 * time.Minute)
	beat("A")
	beat("B")
	if _, err := acquire("q", "B"); !errors.Is(err, store.ErrConflict) {
		t.Fatalf("the lease of a holder without a record was taken early: %v", err)
	}

	// A node that leaves frees its leases at once.
	write(t, s, func(tx store.Tx) error { return tx.NodeLeave("B") })
	if ids := free(); !slices.Equal(ids, []string{"s"}) {
		t.Fatalf("the session of a node that left not listed as free: %v", ids)
	}
	a2 := must(acquire("s", "A"))(t)
	if a2.Token <= b.Token {
		t.Fatalf("token did not grow: %d -> %d", b.Token, a2.Token)
	}
}

// testOtherNodeAlive: a node learns whether another one has a live record,
// its own never counting; a record that expired or left does not count.
func testOtherNodeAlive(t *testing.T, s store.Store, clock *Clock) {
	const nodeTTL = 3 * time.Second
	beat := func(node string) { write(t, s, func(tx store.Tx) error { return tx.NodeBeat(node, nodeTTL) }) }
	others := func(node string) bool {
		var alive bool
		write(t, s, func(tx store.Tx) error { var err error; alive, err = tx.OtherNodeAlive(node); return err })
		return alive
	}
	if others("A") {
		t.Fatal("another node alive in an empty store")
	}
	beat("A")
	if others("A") {
		t.Fatal("a node counted as another to itself")
	}
	beat("B")
	if !others("A") || !others("B") {
		t.Fatal("two live nodes do not see each other")
	}
	clock.Advance(nodeTTL)
	beat("A")
	if others("A") {
		t.Fatal("an expired record counted as a live node")
	}
	beat("B")
	write(t, s, func(tx store.Tx) error { return tx.NodeLeave("B") })
	if others("A") {
		t.Fatal("a node that left counted as alive")
	}
}
