package session

import (
	"errors"

	"github.com/rtcagent/rtcagent/internal/core"
	"github.com/rtcagent/rtcagent/internal/lifecycle"
	"github.com/rtcagent/rtcagent/internal/protocol"
	"github.com/rtcagent/rtcagent/internal/store"
)

// errDone means the item needs no more work (it was deleted in the same transaction).
var errDone = errors.New("item done")

// begin moves the item's turn to running, or finds it already running (the previous
// owner died mid-step) and cleans up after it, returning the ids of the messages
// it closed (their partial text goes after the commit). It returns errDone when
// there is nothing to run. prefetch is whether a resume's turn and open
// calls are asked for with the stream lock (see take).
func (r *Runner) begin(tx store.Tx, item *store.InboxItem, prefetch bool) (*protocol.Turn, []string, error) {
	done := func() (*protocol.Turn, []string, error) {
		if err := tx.InboxDelete(*item); err != nil {
			return nil, nil, err
		}
		return nil, nil, errDone
	}
	// The session first: in a write transaction that read waits for the session's
	// other writers (a stop, a send, a delete), so it and the turn read after it
	// are what this transaction writes over. A resume asks for the turn's open
	// calls with them (ResumeDue).
	if item.Kind == core.KindTurnResume && prefetch {
		tx.Prefetch(store.Prefetch{Turn: item.TurnID, OpenRTCsOf: item.TurnID})
	}
	s, err := tx.SessionGet(item.SessionID)
	if errors.Is(err, store.ErrNotFound) {
		return done()
	}
	if err != nil {
		return nil, nil, err
	}
	t, err := tx.TurnGet(item.TurnID)
	if errors.Is(err, store.ErrNotFound) {
		return done()
	}
	if err != nil {
		return nil, nil, err
	}
	switch {
	case protocol.TurnTerminal(t.Status):
		return done()
	case item.Kind == core.KindRTCExecute:
		if t.Status != protocol.TurnWaiting {
			return done() // its call ended with the turn, or is not open any more
		}
		return t, nil, nil // the turn stays waiting; runServerRTC runs the call
	case t.Status == protocol.TurnRunning:
		closed, err := lifecycle.CloseStreaming(tx, t, nil)
		return t, closed, err
	case item.Kind == core.KindTurnStart && t.Status == protocol.TurnQueued:
		if s.Deleted {
			// Deleting stopped the active turn; the ones queued behind it end
			// too, one after another, and the session stays as deleted.
			closed, err := lifecycle.EndTurn(tx, t, protocol.TurnStopped, nil, "cancelled: the session was deleted", nil)
			if err != nil {
				return nil, nil, err
			}
			_, _, err = done()
			return nil, closed, err
		}
		if s.ActiveTurnID != "" && s.ActiveTurnID != t.ID {
			return done() // queued behind the active turn, which queues it again when it ends
		}
		if t.TraceParent == "" {
			t.TraceParent = r.cfg.Tracer.NewTurnParent()
		}
		if err := lifecycle.StartTurn(tx, t, s); err != nil {
			return nil, nil, err
		}
		return t, nil, nil
	case item.Kind == core.KindTurnResume && t.Status == protocol.TurnWaiting:
		due, err := lifecycle.ResumeDue(tx, t)
		if err != nil {
			return nil, nil, err
		}
		if !due {
			return done() // a second resume, queued before the first was taken: the next step's calls are open
		}
		resumed, closed, err := lifecycle.Resume(tx, t)
		if err != nil || resumed {
			return t, nil, err
		}
		_, _, err = done()
		return nil, closed, err
	}
	return done() // a stale item (such as a start for a turn already waiting)
}
