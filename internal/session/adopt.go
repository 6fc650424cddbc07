package session

import (
	"errors"

	"github.com/rtcagent/rtcagent/internal/store"
)

// Adopt claims, inside tx, the sessions tx gave inbox work that no worker of this
// process drains: it takes each one's lease and first inbox item as a claim does,
// in tx itself, so the work starts as soon as tx commits instead of after a wake-up,
// a read of the inbox and a claim transaction of its own. A lease another node or
// worker holds is left alone (its holder drains the new item).
//
// The caller runs the returned function once with whether tx committed: the
// drains then start, or the claims are forgotten (the leases were not committed
// either). It returns nil when it adopted nothing. An error (the store failed
// while taking a lease or an item) must fail tx: part of a claim may be written.
// An adopted drain waits for a slot in line with the others. Where other
// nodes may drain sessions, it adopts only while fewer drains here wait for a
// slot than there are slots: the rest is left to whichever node has one (the
// commit's notification). A sole writer (Config.SoleWriter) adopts however
// many wait. Call it at the end of a write whose work the session's worker
// picks up (a message, a result, a stop), with every change of the write
// already made.
func (r *Runner) Adopt(tx store.Tx) (func(committed bool), error) {
	woken := tx.Woken()
	if len(woken) == 0 {
		return nil, nil
	}
	r.mu.Lock()
	ok := r.ctx != nil && r.ctx.Err() == nil
	r.mu.Unlock()
	if !ok {
		return nil, nil // not running: wake-ups claim
	}
	type claim struct {
		id    string
		lease store.Lease
		first *taken
	}
	var claims []claim
	fail := func(id string, err error) (func(bool), error) {
		r.endReservation(id)
		for _, c := range claims {
			r.endReservation(c.id)
		}
		return nil, err
	}
	for _, id := range woken {
		if ok, _ := r.reserve(id); !ok {
			continue // drained here already (its worker takes the item), or enough wait here
		}
		lease, err := tx.LeaseAcquire(id, r.cfg.Holder, r.cfg.LeaseTTL)
		if errors.Is(err, store.ErrConflict) {
			r.endReservation(id) // held elsewhere: its holder drains the item
			continue
		}
		if err != nil {
			return fail(id, err)
		}
		first, err := r.take(tx, lease, false)
		if err != nil {
			return fail(id, err)
		}
		claims = append(claims, claim{id: id, lease: lease, first: &first})
	}
	if len(claims) == 0 {
		return nil, nil
	}
	return func(committed bool) {
		for _, c := range claims {
			if !committed {
				r.endReservation(c.id)
				continue
			}
			r.mu.Lock()
			ctx := r.ctx
			if ctx != nil {
				r.wg.Add(1) // under mu: Run waits for the drains only after clearing ctx
			}
			r.mu.Unlock()
			if ctx == nil {
				// Run ended meanwhile: give the lease back so the work resumes
				// elsewhere without waiting for it to expire.
				r.releaseLease(c.lease)
				r.endReservation(c.id)
				continue
			}
			go r.work(ctx, c.id, func(*slot) (store.Lease, *taken, error) { return c.lease, c.first, nil })
		}
	}, nil
}
