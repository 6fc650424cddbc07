package lifecycle

import (
	"time"

	"github.com/rtcagent/rtcagent/internal/protocol"
	"github.com/rtcagent/rtcagent/internal/store"
	"github.com/rtcagent/rtcagent/internal/tools"
)

// What the person decided holds for every call that has not started. A step's
// calls are planned together, with the work mode and "Allow for this chat"
// list of the moment the model asked, but they run one after another: a revoke
// or a switch to plan mode may come while later calls wait in the queue. So
// the decision is made again from the session as it is now, in the
// transaction that delivers a queued call and in the one that starts a server
// call. Both transactions read the session, which orders them with the
// session's writers on every node (the user's stream lock): a decision
// committed before them applies, one committed after finds the call started.

// Deliver makes an RTC pending: visible to the browser for execution, with its
// deadline starting now. prev is its stored status ("" for a new row, planned
// in this transaction). A call that waited in the queue is decided again from
// the session as it is now (decideAgain): plan mode ends it as rejected and the
// next call is delivered instead. A server call that needs no confirmation is
// handed to the session's worker at once (queueExecution).
func Deliver(tx store.Tx, r *protocol.RTC, prev string) error {
	if prev == protocol.RTCQueued {
		refused, err := decideAgain(tx, r)
		if err != nil {
			return err
		}
		if refused {
			return refuse(tx, r, prev)
		}
	}
	r.Status = protocol.RTCPending
	d := tx.Now().Add(time.Duration(r.TimeoutMS) * time.Millisecond)
	r.DeadlineAt = &d
	if err := EmitRTC(tx, r, prev); err != nil {
		return err
	}
	if r.Executor == protocol.RTCExecutorServer && !r.NeedsConfirmation {
		return queueExecution(tx, r)
	}
	return nil
}

// decideAgain applies the session's current work mode and approvals to r,
// which has not started. It reports whether plan mode now refuses r; otherwise
// it sets r.NeedsConfirmation (and the standing approval that clears it) as
// they are now. A call the person approved themselves (a server call's
// approval) keeps that approval; only plan mode stops it. A call planned
// before policies were recorded keeps its decision unless its standing
// approval was revoked.
func decideAgain(tx store.Tx, r *protocol.RTC) (refused bool, err error) {
	s, err := tx.SessionGet(r.SessionID)
	if err != nil {
		return false, err
	}
	needs := r.NeedsConfirmation
	if standingNow(r) {
		needs = true // what the approval cleared, unless it still holds (below)
	}
	if p := r.Policy; p != nil {
		d := tools.DecideTool(s.WorkMode, tools.Tool{Kind: tools.Kind(p.Kind), Approval: p.HostApproval}, r.Arguments)
		if d.Refused {
			return true, nil
		}
		needs = d.NeedsConfirmation
	}
	if r.Approved() {
		return false, nil
	}
	if standingNow(r) {
		r.Decision = nil
	}
	if needs {
		if a, ok := s.Approval(r.ToolName); ok && tools.AllowableForChat(r.ToolName, r.Arguments) {
			needs = false
			r.Decision = &protocol.Decision{Decision: protocol.DecisionAllow, Scope: protocol.ScopeSession, Standing: true, DeviceID: a.DeviceID, At: a.GrantedAt}
		}
	}
	if needs && !r.NeedsConfirmation && r.Policy != nil && r.Policy.AskTimeoutMS > r.TimeoutMS {
		// A person has their usual time to answer, from now on, and the turn's
		// checkpoint lasts until then.
		r.TimeoutMS = r.Policy.AskTimeoutMS
		if err := keepCheckpoint(tx, r.TurnID, tx.Now().Add(time.Duration(r.TimeoutMS)*time.Millisecond)); err != nil {
			return false, err
		}
	}
	r.NeedsConfirmation = needs
	return false, nil
}

// CheckpointGrace is how long a checkpoint outlives the last possible deadline
// of its step, so a timeout always finds the checkpoint it resumes from.
const CheckpointGrace = time.Hour

// keepCheckpoint makes the turn's checkpoint last at least CheckpointGrace past
// deadline.
func keepCheckpoint(tx store.Tx, turnID string, deadline time.Time) error {
	t, err := tx.TurnGet(turnID)
	if err != nil {
		return err
	}
	cp := t.Checkpoint
	if cp == nil || !cp.ExpiresAt.After(tx.Now()) {
		return nil // none to keep: the turn's resumption fails visibly as expired
	}
	if want := deadline.Add(CheckpointGrace); cp.ExpiresAt.Before(want) {
		cp.ExpiresAt = want
		// Nothing a client sees changed: the row, not its Topic change.
		return tx.TurnUpdate(t, t.Status)
	}
	return nil
}

// standingNow reports whether r runs unasked because of an "Allow for this
// chat" recorded on it.
func standingNow(r *protocol.RTC) bool {
	return r.Decision != nil && r.Decision.Standing
}

// refuse ends r, which the work mode refuses now, as plan mode refuses a call
// at planning: rejected, with the text the model reads.
func refuse(tx store.Tx, r *protocol.RTC, prev string) error {
	r.Status, r.Error = protocol.RTCRejected, tools.PlanRefusal(r.ToolName)
	return endRTC(tx, r, prev, nil)
}
