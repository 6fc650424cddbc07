package session

import (
	"errors"

	"github.com/rtcagent/rtcagent/internal/store"
)

// maxHandOffTries bounds the sessions a drain's last transaction tries to hand
// its slot to: one held elsewhere or with nothing left to do is passed over.
const maxHandOffTries = 4

// waitQueue is the sessions known to have inbox work that no drain here holds,
// in the order they were woken (Config.SoleWriter). A session leaves it when a
// drain of this process is reserved for it, whatever the way.
type waitQueue struct {
	order []string
	in    map[string]bool
}

func (q *waitQueue) len() int { return len(q.in) }

// push adds id at the back unless it waits already.
func (q *waitQueue) push(id string) {
	if q.in[id] {
		return
	}
	if q.in == nil {
		q.in = map[string]bool{}
	}
	q.in[id] = true
	q.order = append(q.order, id)
}

// putFirst puts ids, in their order, ahead of every session waiting.
func (q *waitQueue) putFirst(ids []string) {
	rest := q.order
	q.order = nil
	for _, id := range ids {
		delete(q.in, id)
		q.push(id)
	}
	for _, id := range rest {
		if q.in[id] {
			delete(q.in, id)
			q.push(id)
		}
	}
}

// remove takes id out; its place in order is dropped when reached.
func (q *waitQueue) remove(id string) {
	delete(q.in, id)
	if len(q.order) > 64 && len(q.order) > 2*len(q.in) {
		q.putFirst(nil) // drop the places of removed sessions
	}
}

// pop takes the session waiting longest.
func (q *waitQueue) pop() (string, bool) {
	for len(q.order) > 0 {
		id := q.order[0]
		q.order = q.order[1:]
		if q.in[id] {
			delete(q.in, id)
			return id, true
		}
	}
	return "", false
}

// handoff is a claim made in the transaction that ended another session's
// drain: the drain slot passes to it when that transaction commits.
type handoff struct {
	from, id string
	lease    store.Lease
	first    *taken
}

// handOff claims, in tx, which ended the drain of session from (its last item
// done, its lease released), the session that waited longest for a slot: its
// lease and first inbox item, as a claim transaction of its own would. With
// every slot taken, a freed slot goes on so without a claim pass reading the
// inbox or a write to take the lease. It returns nil when no session waits (or
// none it tried had work and a free lease). An error (the store failed while
// taking a lease or an item) must fail tx, as Adopt's. The caller settles the
// claim once tx ended: passOn when it committed, cancel otherwise.
func (r *Runner) handOff(tx store.Tx, from string) (*handoff, error) {
	if !r.cfg.SoleWriter {
		return nil, nil
	}
	for range maxHandOffTries {
		id, ok := r.reserveWaiting()
		if !ok {
			return nil, nil
		}
		h := &handoff{from: from, id: id}
		lease, err := tx.LeaseAcquire(id, r.cfg.Holder, r.cfg.LeaseTTL)
		if errors.Is(err, store.ErrConflict) {
			r.cancel(h, false) // held elsewhere: its holder drains it
			continue
		}
		if err != nil {
			r.cancel(h, true)
			return nil, err
		}
		first, err := r.take(tx, lease, false) // tx holds the lock of the session it ends
		if err != nil {
			r.cancel(h, true)
			return nil, err
		}
		if first.item == nil {
			r.cancel(h, false) // nothing left to do: take gave the lease back
			continue
		}
		h.lease, h.first = lease, &first
		return h, nil
	}
	return nil, nil
}

// reserveWaiting marks the session waiting longest as drained here, for the
// slot of a drain that ends; false when none waits or the runner stops.
func (r *Runner) reserveWaiting() (string, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.ctx == nil || r.ctx.Err() != nil {
		return "", false
	}
	for {
		id, ok := r.waiting.pop()
		if !ok {
			return "", false
		}
		if !r.active[id] {
			r.active[id] = true
			return id, true
		}
	}
}

// cancel undoes a handoff's reservation; wait puts the session back first in
// line (its claim was rolled back, not found needless).
func (r *Runner) cancel(h *handoff, wait bool) {
	if h == nil {
		return
	}
	r.mu.Lock()
	delete(r.active, h.id)
	wait = wait || r.missed[h.id]
	if wait {
		r.waiting.putFirst([]string{h.id})
	}
	delete(r.missed, h.id)
	r.mu.Unlock()
	if wait {
		r.kick() // a pass with a free slot claims it
	}
}

// passOn ends the drain of h.from, whose slot h.id now has. It reports
// whether a claim pass should follow (h.from was woken while drained).
func (r *Runner) passOn(h *handoff) (pass bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	delete(r.active, h.from)
	return r.settleMissed(h.from)
}
