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
// Where other nodes may drain sessions, it adopts only with a drain slot free
// here, and none while sessions wait for one (claimed drains get freed slots
// first) or a claim pass found more work than it started, so new work does
// not overtake theirs; otherwise the work is left to whichever node has a
// slot (the commit's notification and wake-up). A sole writer
// (Config.SoleWriter), or a node that saw no other alive (alone.go), adopts
// whether a slot is free or not, and the drain waits for its slot in line
// with the others. Call it at the end of a write whose work the session's
// worker picks up (a message, a result, a stop), with every change of the
// write already made.
func (r *Runner) Adopt(tx store.Tx) (func(committed bool), error) {
	woken := tx.Woken()
	if len(woken) == 0 {
		return nil, nil
	}
	r.mu.Lock()
	ok := r.ctx != nil && r.ctx.Err() == nil && (r.pastSlots() || !r.backlog && r.waiting.len() == 0)
	r.mu.Unlock()
	if !ok {
		return nil, nil // not running, or older work waits for a slot: wake-ups claim
	}
	type claim struct {
		id    string
		sl    *slot
		lease store.Lease
		first *taken
	}
	// held are the sessions reserved here and not given back. A function
	// that unwinds instead of returning (the store ends a run to run it
	// again, store.Store.Write) gives them back too: the run that follows
	// reserves them anew.
	var claims []claim
	var held []claim
	defer func() {
		for _, c := range held {
			r.endReservation(c.id, c.sl)
		}
	}()
	for _, id := range woken {
		sl, _ := r.reserve(id)
		if sl == nil {
			continue // drained here already (its worker takes the item), or no slot free here
		}
		held = append(held, claim{id: id, sl: sl})
		lease, err := tx.LeaseAcquire(id, r.cfg.Holder, r.cfg.LeaseTTL)
		if errors.Is(err, store.ErrConflict) {
			held = held[:len(held)-1]
			r.endReservation(id, sl) // held elsewhere: its holder drains the item
			continue
		}
		if err != nil {
			return nil, err
		}
		first, err := r.take(tx, lease, false)
		if err != nil {
			return nil, err
		}
		claims = append(claims, claim{id: id, sl: sl, lease: lease, first: &first})
	}
	held = nil // each is a claim now, given back by the function below when its write does not commit
	if len(claims) == 0 {
		return nil, nil
	}
	return func(committed bool) {
		for _, c := range claims {
			if !committed {
				r.endReservation(c.id, c.sl)
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
				r.endReservation(c.id, c.sl)
				continue
			}
			go r.work(ctx, c.id, c.sl, func() (store.Lease, *taken, error) { return c.lease, c.first, nil })
		}
	}, nil
}
