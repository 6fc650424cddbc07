package session

import "context"

// slot is a drain's hold on one of the runner's drain slots
// (Config.Concurrency): taken before a claim takes the session's lease, or
// when an adopted drain first has a model step or server call to run, and
// given back when the drain ends.
type slot struct {
	r    *Runner
	held bool
}

// wait takes the slot, waiting for a free one in the order the drains asked.
// turnID, when set, is the turn the drain waits to run: a stop of it
// (CancelTurn, before the wait or during it) ends the wait, so the drain
// takes its item again (which drops it) instead of asking the model for a
// turn that ended. A drain that holds its session's lease passes
// mayGiveBack: it waits only while no other node could take the session
// (Runner.otherNode); once one could, the wait ends with giveBack, and the
// drain gives its lease to a node with a slot free. held reports whether
// the drain holds the slot; false when ctx ended, the turn was stopped or
// giveBack.
func (s *slot) wait(ctx context.Context, turnID string, mayGiveBack bool) (held, giveBack bool) {
	if s.held {
		return true, false
	}
	if s.r.slotNow() {
		s.held = true
		return true, false
	}
	var back <-chan struct{}
	if mayGiveBack {
		back = s.r.otherNode()
	}
	if turnID != "" {
		var cancel context.CancelFunc
		ctx, cancel = context.WithCancel(ctx)
		defer cancel()
		defer s.r.cancels.Add(turnID, cancel)()
	}
	metricWaiting.Inc()
	defer metricWaiting.Dec()
	select {
	case s.r.sem <- struct{}{}:
		metricActive.Inc()
		s.held = true
	case <-back:
		return false, ctx.Err() == nil
	case <-ctx.Done():
	}
	if ctx.Err() != nil { // also when a slot came at the same moment
		s.free()
		return false, false
	}
	return true, false
}

// free gives the slot back, if held.
func (s *slot) free() {
	if s.held {
		s.held = false
		s.r.slotFree()
	}
}
