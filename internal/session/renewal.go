package session

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/rtcagent/rtcagent/internal/store"
)

// renewal renews a drain's lease every third of its TTL, from a timer: a
// drain that ends within its lease's first term, as one that suspends its
// turn at the next call does, starts no goroutine for it.
type renewal struct {
	mu      sync.Mutex
	t       *time.Timer
	stopped bool
	running sync.WaitGroup // the renewal under way, if any
}

// renewEvery starts renewing o's lease; a renewal that finds the lease lost
// cancels the drain (cancel).
func (r *Runner) renewEvery(ctx context.Context, cancel context.CancelFunc, o *owner) *renewal {
	rn := &renewal{}
	every := r.cfg.LeaseTTL / 3
	rn.mu.Lock()
	defer rn.mu.Unlock()
	rn.t = time.AfterFunc(every, func() {
		rn.mu.Lock()
		if rn.stopped {
			rn.mu.Unlock()
			return
		}
		rn.running.Add(1)
		rn.mu.Unlock()
		defer rn.running.Done()
		if !r.renew(ctx, cancel, o) {
			return
		}
		rn.mu.Lock()
		if !rn.stopped {
			rn.t.Reset(every)
		}
		rn.mu.Unlock()
	})
	return rn
}

// stop ends the renewals and waits for the one under way (the drain's
// context, cancelled first, ends its write): none runs once stop returns.
func (rn *renewal) stop() {
	rn.mu.Lock()
	rn.stopped = true
	rn.t.Stop()
	rn.mu.Unlock()
	rn.running.Wait()
}

// renew renews o's lease once and says whether to go on: not once the lease
// is lost (it cancels the drain) or the drain's context ended.
func (r *Runner) renew(ctx context.Context, cancel context.CancelFunc, o *owner) bool {
	err := r.cfg.Store.Write(ctx, func(tx store.Tx) error {
		l, err := tx.LeaseRenew(o.get(), r.cfg.LeaseTTL)
		if err == nil {
			o.mu.Lock()
			o.lease = l
			o.mu.Unlock()
		}
		return err
	})
	if errors.Is(err, store.ErrLeaseLost) {
		cancel()
		return false
	}
	if err != nil && ctx.Err() == nil {
		r.log.Warn("renew lease", "session", o.get().SessionID, "err", err)
	}
	return ctx.Err() == nil
}
