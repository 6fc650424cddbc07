package session

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rtcagent/rtcagent/internal/store"
	"github.com/rtcagent/rtcagent/internal/testkit/testsvc"
)

// Leases given back at one moment take a write or two, not one each: while
// one batch is written, the leases that come wait and go together in the
// next; every one is given back.
func TestLeasesGivenBackTogether(t *testing.T) {
	eachStore(t, func(t *testing.T, open func(*testing.T) store.Store) {
		st := &gatedWrites{Store: open(t), gate: make(chan struct{})}
		r := New(Config{Store: st, Model: helloModel(t)})
		ctx := context.Background()
		var leases []store.Lease
		if err := st.Store.Write(ctx, func(tx store.Tx) error {
			for i := range 6 {
				l, err := tx.LeaseAcquire(fmt.Sprint("s", i), r.cfg.Holder, time.Hour)
				if err != nil {
					return err
				}
				leases = append(leases, l)
			}
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		errs := make(chan error, len(leases))
		go func() { errs <- r.release(leases[0]) }()
		waitFor(t, "the first batch's write", func() bool { return st.writes.Load() == 1 })
		for _, l := range leases[1:] {
			go func() { errs <- r.release(l) }()
		}
		waitFor(t, "the others in the next batch", func() bool {
			r.releases.mu.Lock()
			defer r.releases.mu.Unlock()
			return r.releases.next != nil && len(r.releases.next.leases) == len(leases)-1
		})
		close(st.gate)
		for range leases {
			if err := <-errs; err != nil {
				t.Fatal(err)
			}
		}
		if n := st.writes.Load(); n != 2 {
			t.Errorf("%d writes gave back %d leases, want 2", n, len(leases))
		}
		if err := st.Store.Write(ctx, func(tx store.Tx) error {
			for _, l := range leases {
				if _, err := tx.LeaseAcquire(l.SessionID, "another node", time.Hour); err != nil {
					return fmt.Errorf("%s: %w", l.SessionID, err)
				}
			}
			return nil
		}); err != nil {
			t.Errorf("a lease given back is still held: %v", err)
		}
	})
}

// gatedWrites holds its first write until gate is closed and counts writes.
type gatedWrites struct {
	store.Store
	gate   chan struct{}
	writes atomic.Int32
}

func (g *gatedWrites) Write(ctx context.Context, fn func(store.Tx) error) error {
	if g.writes.Add(1) == 1 {
		<-g.gate
	}
	return g.Store.Write(ctx, fn)
}

// A batch whose write panics does not hold up the next one.
func TestReleaseGoesOnAfterAPanickingWrite(t *testing.T) {
	st := &panickingWrites{Store: testsvc.SQLite(t)}
	r := New(Config{Store: st, Model: helloModel(t)})
	l := store.Lease{SessionID: "s", Holder: r.cfg.Holder, Token: 1}
	func() {
		defer func() { _ = recover() }()
		_ = r.release(l)
	}()
	done := make(chan error, 1)
	go func() { done <- r.release(l) }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("a release after a panicking write does not return")
	}
}

// panickingWrites panics in its first write.
type panickingWrites struct {
	store.Store
	writes atomic.Int32
}

func (p *panickingWrites) Write(ctx context.Context, fn func(store.Tx) error) error {
	if p.writes.Add(1) == 1 {
		panic("the store failed")
	}
	return p.Store.Write(ctx, fn)
}
