package session

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/rtcagent/rtcagent/internal/store"
)

// Leases are given back in batches. Many drains give theirs back at one
// moment: every drain waiting past its slots when this node first sees
// another (alone.go), every drain when the runner stops. Each asks release;
// the first of a batch writes it, and the leases that come while a batch is
// written wait for the next, so a moment's leases take a write or two, not
// one each.

// releaseTimeout bounds a batch's write: a lease not given back expires on
// its own.
const releaseTimeout = 2 * time.Second

// releases is the runner's batching of lease releases.
type releases struct {
	mu   sync.Mutex
	next *releaseBatch // filling; nil when none is
	// writing is held by the batch being written: one at a time, so the
	// next gathers what comes meanwhile.
	writing sync.Mutex
}

// releaseBatch is one write's leases and its outcome.
type releaseBatch struct {
	leases []store.Lease
	done   chan struct{} // closed once err is set
	err    error
}

// release gives l back with the other leases given back at the moment, in
// one write, and returns that write's error.
func (r *Runner) release(l store.Lease) error {
	rs := &r.releases
	rs.mu.Lock()
	b := rs.next
	lead := b == nil
	if lead {
		b = &releaseBatch{done: make(chan struct{})}
		rs.next = b
	}
	b.leases = append(b.leases, l)
	rs.mu.Unlock()
	if !lead {
		<-b.done
		return b.err
	}
	rs.writing.Lock()
	rs.mu.Lock()
	rs.next = nil // what comes from now on is the next batch's
	rs.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), releaseTimeout)
	// Deferred, so that a write that panics still lets the followers and the
	// next batch go on (the panic goes on up the leader's goroutine).
	b.err = errReleaseUnfinished
	defer func() {
		cancel()
		rs.writing.Unlock()
		close(b.done)
	}()
	b.err = r.cfg.Store.Write(ctx, func(tx store.Tx) error {
		for _, l := range b.leases {
			if err := tx.LeaseRelease(l); err != nil {
				return err
			}
		}
		return nil
	})
	return b.err
}

// errReleaseUnfinished is a batch's outcome when its write did not return.
var errReleaseUnfinished = errors.New("the write giving leases back did not finish")

// releaseLease gives a lease back at shutdown, within a short time.
func (r *Runner) releaseLease(l store.Lease) {
	if err := r.release(l); err != nil {
		r.log.Warn("release lease at shutdown", "session", l.SessionID, "err", err)
	}
}
