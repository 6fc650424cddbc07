package lifecycle

import (
	"errors"

	"github.com/rtcagent/rtcagent/internal/core"
	"github.com/rtcagent/rtcagent/internal/protocol"
	"github.com/rtcagent/rtcagent/internal/store"
)

// ExpireRTC marks an RTC whose deadline passed as timeout. It is a no-op when the
// RTC ended meanwhile.
func ExpireRTC(tx store.Tx, id string) error {
	tx.Prefetch(store.Prefetch{TurnOfRTC: id}) // endRTC reads them
	r, err := tx.RTCGet(id)
	if err != nil || protocol.RTCTerminal(r.Status) || r.DeadlineAt == nil || r.DeadlineAt.After(tx.Now()) {
		return err
	}
	prev := r.Status
	r.Status = protocol.RTCTimeout
	r.Error = "no result before the deadline"
	return endRTC(tx, r, prev, nil)
}

// endRTC writes r in its new terminal status (compare-and-set from prev) and then,
// in the same transaction, delivers the next queued RTC of the turn or, when none is
// left open, queues the turn's resumption (or ends an app turn, which has
// nothing to resume). act is the person who ended it, if any.
// A call a view asked for (core.IsViewCall) runs beside the step's calls: it holds
// back neither the next call of the step nor is held back by it, and the turn
// resumes only once it ended too.
func endRTC(tx store.Tx, r *protocol.RTC, prev string, act *actor) error {
	if err := emitRTCBy(tx, r, prev, act); err != nil {
		return casConflict(err, r.ID)
	}
	rtcs, err := tx.RTCListOpenByTurn(r.TurnID)
	if err != nil {
		return err
	}
	var queued *protocol.RTC
	views := false
	for i := range rtcs {
		x := &rtcs[i]
		switch {
		case x.Status == protocol.RTCQueued:
			if queued == nil {
				queued = x
			}
		case core.IsViewCall(x):
			views = true
		default:
			return nil // another call of the step (or a question of one) is still open: one at a time
		}
	}
	if queued != nil {
		return Deliver(tx, queued, protocol.RTCQueued)
	}
	if views {
		return nil // the turn resumes when the view's call ends
	}
	turn, err := tx.TurnGet(r.TurnID)
	if err != nil || turn.Status != protocol.TurnWaiting {
		return err // a stopped or failed turn does not resume
	}
	if turn.Kind == protocol.TurnKindApp {
		// A view's call's own turn has nothing to resume: it ends with its
		// call, so the view's next call finds the chat free.
		_, err := EndTurn(tx, turn, protocol.TurnCompleted, nil, "", nil)
		return err
	}
	return tx.InboxInsert(&store.InboxItem{SessionID: r.SessionID, Kind: core.KindTurnResume, TurnID: r.TurnID})
}

func casConflict(err error, id string) error {
	if errors.Is(err, store.ErrConflict) {
		return raceLost{pe: protocol.Errorf(protocol.CodeConflict, "rtc %q changed concurrently; read it again", id)}
	}
	return err
}

// raceLost is a compare-and-set on an RTC that another transaction won between
// this one's read and its write. It reads as a conflict on the wire and is
// store.ErrConflict to the caller, which may run its transaction again: the new
// run reads the winner's state (for a result: the stored outcome).
type raceLost struct{ pe *protocol.Error }

func (e raceLost) Error() string        { return e.pe.Error() }
func (e raceLost) Unwrap() error        { return e.pe }
func (e raceLost) Is(target error) bool { return target == store.ErrConflict }
