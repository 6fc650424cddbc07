package session

import (
	"context"
)

// A node of a cluster that finds no other node alive when it renews its
// liveness record is alone: no other node could drain a session it holds, so
// it adopts past its slots as a sole writer does (a result takes its session
// in its own write, and the drain waits in memory for a slot). Once it sees
// another node, the drains that wait for a slot holding a lease give it back:
// each session goes to the ready queue and the other nodes are told with the
// commit, so one with a slot free takes it. From then on the node adopts only
// with a slot free, as before.

// closedChan is a channel that is always closed.
var closedChan = func() chan struct{} { c := make(chan struct{}); close(c); return c }()

// setAlone records what this process's liveness renewal found: whether no
// other node is alive. Seeing one ends the waits of the drains holding a
// lease without a slot (otherNode).
func (r *Runner) setAlone(alone bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	switch {
	case alone && !r.alone:
		r.others = make(chan struct{})
	case !alone && r.alone:
		close(r.others)
	}
	r.alone = alone
}

// pastSlots reports, under mu, whether a write adopts the sessions it gives
// work with no slot free: no other node could drain them meanwhile (a sole
// writer, or a node that is alone).
func (r *Runner) pastSlots() bool { return r.cfg.SoleWriter || r.alone }

// otherNode is what ends the wait for a slot of a drain that holds its
// session's lease: nothing for a sole writer (nil), a channel closed once
// this node sees another one; closed already when it sees one now.
func (r *Runner) otherNode() <-chan struct{} {
	r.mu.Lock()
	defer r.mu.Unlock()
	switch {
	case r.cfg.SoleWriter:
		return nil
	case r.alone:
		return r.others
	}
	return closedChan
}

// giveBack gives back the lease of a drain that waits for a slot now that
// another node may take its session, in one write with the other drains
// doing so (release): the work left goes to the ready queue and the other
// nodes are told when it commits. It reports whether it did; when it could
// not, the drain waits for its slot here.
func (r *Runner) giveBack(ctx context.Context, o *owner) bool {
	err := r.release(o.get())
	if err != nil && ctx.Err() == nil {
		r.log.Warn("give back the lease of a session waiting for a slot", "session", o.get().SessionID, "err", err)
	}
	return err == nil
}
