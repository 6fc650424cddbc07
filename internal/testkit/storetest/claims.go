package storetest

import (
	"slices"
	"testing"
	"time"

	"github.com/rtcagent/rtcagent/internal/store"
)

// Work is found by a claim pass whichever way its session lost its holder:
// queued without the lease, given back with work left, held by a holder
// whose lease expired, or by a node whose liveness record expired. A session
// a live holder drains is not a candidate once it finished an item.
func testClaimCandidates(t *testing.T, s store.Store, clock *Clock) {
	candidates := func() []string {
		var ids []string
		if err := s.Read(ctx, func(tx store.Tx) error {
			var err error
			ids, err = tx.InboxSessions(-1)
			return err
		}); err != nil {
			t.Fatal(err)
		}
		return ids
	}
	queue := func(id string) *store.InboxItem {
		it := &store.InboxItem{SessionID: id, Kind: "k", TurnID: "t"}
		write(t, s, func(tx store.Tx) error { return tx.InboxInsert(it) })
		return it
	}
	acquire := func(id, holder string) store.Lease {
		var l store.Lease
		write(t, s, func(tx store.Tx) error {
			var err error
			l, err = tx.LeaseAcquire(id, holder, 10*time.Second)
			return err
		})
		return l
	}
	finish := func(it *store.InboxItem, l store.Lease) {
		var released bool
		write(t, s, func(tx store.Tx) error { return tx.InboxFinish(it.ID, l, &released) })
	}
	has := func(id string) bool { return slices.Contains(candidates(), id) }

	// Queued without the lease: a candidate until claimed.
	a1 := queue("a")
	if !has("a") {
		t.Fatalf("work queued without a lease: candidates %v", candidates())
	}
	la := acquire("a", "A")
	// Queued while A drains: A takes it, and once A finished an item the
	// session is no candidate while A lives.
	a2 := queue("a")
	finish(a1, la)
	if has("a") {
		t.Fatalf("a session its live holder drains: candidates %v", candidates())
	}
	// Given back with work left: a candidate again.
	write(t, s, func(tx store.Tx) error { return tx.LeaseRelease(la) })
	if !has("a") {
		t.Fatalf("a lease given back with work left: candidates %v", candidates())
	}
	// Held by a holder that stops renewing: a candidate once its lease expired.
	la = acquire("a", "A")
	if has("a") {
		t.Fatalf("a freshly claimed session: candidates %v", candidates())
	}
	clock.Advance(11 * time.Second)
	if !has("a") {
		t.Fatalf("a session whose lease expired: candidates %v", candidates())
	}
	// Held by a node whose liveness record expired: a candidate at once.
	write(t, s, func(tx store.Tx) error { return tx.NodeBeat("B", 2*time.Second) })
	lb := acquire("a", "B")
	if has("a") {
		t.Fatalf("a session a live node holds: candidates %v", candidates())
	}
	clock.Advance(3 * time.Second)
	if !has("a") {
		t.Fatalf("a session held by a dead node: candidates %v", candidates())
	}
	// Its last item finished by a new holder: no candidate any more.
	l := acquire("a", "C")
	finish(a2, l)
	if has("a") || lb.Token >= l.Token {
		t.Fatalf("a session without work: candidates %v, tokens %d then %d", candidates(), lb.Token, l.Token)
	}
}
