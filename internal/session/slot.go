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
// turn that ended. It reports whether the drain holds the slot; false when
// ctx ended or the turn was stopped.
func (s *slot) wait(ctx context.Context, turnID string) bool {
	if s.held {
		return true
	}
	if s.r.slotNow() {
		s.held = true
		return true
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
	case <-ctx.Done():
	}
	if ctx.Err() != nil { // also when a slot came at the same moment
		s.free()
		return false
	}
	return true
}

// free gives the slot back, if held.
func (s *slot) free() {
	if s.held {
		s.held = false
		s.r.slotFree()
	}
}
