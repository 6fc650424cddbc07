package core

import (
	"errors"
	"time"

	"github.com/rtcagent/rtcagent/internal/protocol"
	"github.com/rtcagent/rtcagent/internal/store"
	"github.com/rtcagent/rtcagent/internal/tools"
)

// UpdateRTCStatus moves an RTC forward to sent, executing or rejected. Repeating
// the status it already has is accepted (a retried request); moving backwards or out
// of a terminal status is a conflict.
func UpdateRTCStatus(tx store.Tx, c Caller, req *protocol.RTCUpdateStatusRequest) (*protocol.RTC, error) {
	if req.Status == protocol.RTCRejected {
		tx.Prefetch(store.Prefetch{TurnOfRTC: req.RTCID}) // endRTC reads them
	}
	r, err := RTCForDevice(tx, c, req.RTCID)
	if err != nil {
		return nil, err
	}
	if r.Status == req.Status {
		return r, nil
	}
	if r.Status == protocol.RTCQueued {
		return nil, protocol.Errorf(protocol.CodeConflict, "rtc %q is queued behind an earlier call of its session", r.ID)
	}
	if r.Executor == protocol.RTCExecutorServer && req.Status == protocol.RTCExecuting {
		return nil, errServerRuns(r.ID)
	}
	if r.Executor == protocol.RTCExecutorServer && r.Status == protocol.RTCExecuting {
		// The call runs on the server and may have taken effect: a refusal now
		// would tell the model and the audit it did not run.
		return nil, protocol.Errorf(protocol.CodeConflict, "rtc %q is already running on the server and can no longer be refused; stop the turn to cancel it", r.ID)
	}
	if !protocol.RTCTransitionAllowed(r.Status, req.Status) {
		return nil, protocol.Errorf(protocol.CodeConflict, "rtc %q cannot go from %s to %s", r.ID, r.Status, req.Status)
	}
	prev := r.Status
	r.Status = req.Status
	if req.Approval != nil && (req.Status == protocol.RTCExecuting || req.Status == protocol.RTCRejected) {
		if err := recordDecision(tx, c, r, req); err != nil {
			return nil, err
		}
	}
	if req.Status == protocol.RTCRejected {
		r.ClientID = req.ClientID
		r.Error = req.Reason
		return r, endRTC(tx, r, prev, &actor{caller: c, reason: req.Reason})
	}
	if err := emitRTCBy(tx, r, prev, &actor{caller: c}); err != nil {
		return nil, casConflict(err, r.ID)
	}
	return r, nil
}

// SubmitResult records the outcome of an RTC exactly once. A replay (the RTC is
// already terminal) returns the stored RTC and changes nothing, whatever client_id
// it carries.
func SubmitResult(tx store.Tx, c Caller, req *protocol.RTCSubmitResultRequest) (*protocol.RTC, error) {
	tx.Prefetch(store.Prefetch{TurnOfRTC: req.RTCID}) // endRTC reads them
	r, err := RTCForDevice(tx, c, req.RTCID)
	if err != nil {
		return nil, err
	}
	if protocol.RTCTerminal(r.Status) {
		return r, nil
	}
	if r.Status == protocol.RTCQueued {
		return nil, protocol.Errorf(protocol.CodeConflict, "rtc %q is queued behind an earlier call of its session and was not delivered", r.ID)
	}
	if r.Executor == protocol.RTCExecutorServer {
		return nil, errServerRuns(r.ID)
	}
	prev := r.Status
	r.ClientID = req.ClientID
	if req.OK {
		r.Status, r.Output = protocol.RTCCompleted, req.Output
	} else {
		r.Status, r.Error = protocol.RTCFailed, req.Error
		if r.Error == "" {
			r.Error = "the tool failed without a message"
		}
	}
	return r, endRTC(tx, r, prev, &actor{caller: c, execution: req.Execution})
}

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
// left open, queues the turn's resumption. act is the person who ended it, if any.
func endRTC(tx store.Tx, r *protocol.RTC, prev string, act *actor) error {
	if err := emitRTCBy(tx, r, prev, act); err != nil {
		return casConflict(err, r.ID)
	}
	rtcs, err := tx.RTCListOpenByTurn(r.TurnID)
	if err != nil {
		return err
	}
	for i := range rtcs {
		next := &rtcs[i]
		if next.Step != r.Step {
			continue
		}
		if next.Status == protocol.RTCQueued {
			return Deliver(tx, next, protocol.RTCQueued)
		}
		return nil // another call of the step is still open (not expected: one at a time)
	}
	turn, err := tx.TurnGet(r.TurnID)
	if err != nil || turn.Status != protocol.TurnWaiting {
		return err // a stopped or failed turn does not resume
	}
	return tx.InboxInsert(&store.InboxItem{SessionID: r.SessionID, Kind: KindTurnResume, TurnID: r.TurnID})
}

// Deliver makes an RTC pending: visible to the browser for execution, with its
// deadline starting now. prev is its stored status ("" for a new row, planned
// in this transaction). A call that waited in the queue is decided again from
// the session as it is now (decideAgain): plan mode ends it as rejected and the
// next call is delivered instead. A server call that needs no confirmation is
// handed to the session's worker at once.
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

// recordDecision keeps the person's answer on the RTC (who, when, scope, reason)
// and, for "Allow for this chat", adds the tool to the session's approvals in the
// same transaction. A call that allow-for-chat may not cover (a protected path, a
// script) is recorded as allowed once. Queued calls of the same tool in the same
// step that the approval covers no longer need confirmation.
func recordDecision(tx store.Tx, c Caller, r *protocol.RTC, req *protocol.RTCUpdateStatusRequest) error {
	d := &protocol.Decision{Decision: protocol.DecisionAllow, Scope: protocol.ScopeOnce, DeviceID: c.DeviceID, At: tx.Now()}
	if req.Status == protocol.RTCRejected {
		d.Decision, d.Reason = protocol.DecisionDeny, req.Approval.Reason
		r.Decision = d
		return nil
	}
	allowable := tools.AllowableForChat(r.ToolName, r.Arguments)
	if req.Approval.Standing {
		return recordStanding(tx, r, d, allowable)
	}
	if req.Approval.Scope == protocol.ScopeSession && allowable {
		d.Scope = protocol.ScopeSession
	}
	r.Decision = d
	if d.Scope != protocol.ScopeSession {
		return nil
	}
	return allowForChat(tx, c, r, d.At)
}

// recordStanding records a call the browser ran unasked because, it says, the
// tool is allowed for this chat. The server records what it holds, not the
// claim: the session's approval (its device and time) when there is one that
// covers the call, otherwise an approval of this call once by the device, with
// a note that the claimed approval does not exist.
func recordStanding(tx store.Tx, r *protocol.RTC, d *protocol.Decision, allowable bool) error {
	s, err := tx.SessionGet(r.SessionID)
	if err != nil {
		return err
	}
	if a, ok := s.Approval(r.ToolName); ok && allowable {
		d.Scope, d.Standing, d.DeviceID, d.At = protocol.ScopeSession, true, a.DeviceID, a.GrantedAt
	} else {
		d.Reason = "the browser reported an approval for this chat that the session does not hold"
	}
	r.Decision = d
	return nil
}

// allowForChat adds r's tool to the session's "Allow for this chat" list and
// clears the confirmation of the queued calls of the same tool in r's step that
// the approval covers.
func allowForChat(tx store.Tx, c Caller, r *protocol.RTC, at time.Time) error {
	s, err := tx.SessionGet(r.SessionID)
	if err != nil {
		return err
	}
	if !s.HasApproval(r.ToolName) {
		s.Approvals = append(s.Approvals, protocol.ToolApproval{Tool: r.ToolName, DeviceID: c.DeviceID, RTCID: r.ID, GrantedAt: at})
		if err := EmitSession(tx, s, protocol.UpdSessionUpdated); err != nil {
			return err
		}
	}
	open, err := tx.RTCListOpenByTurn(r.TurnID)
	if err != nil {
		return err
	}
	for i := range open {
		q := &open[i]
		if q.Status != protocol.RTCQueued || q.Step != r.Step || q.ToolName != r.ToolName || !q.NeedsConfirmation || !tools.AllowableForChat(q.ToolName, q.Arguments) {
			continue
		}
		q.NeedsConfirmation = false
		q.Decision = &protocol.Decision{Decision: protocol.DecisionAllow, Scope: protocol.ScopeSession, Standing: true, DeviceID: c.DeviceID, At: at}
		if err := EmitRTC(tx, q, protocol.RTCQueued); err != nil {
			return casConflict(err, q.ID)
		}
	}
	return nil
}

// RevokeApprovals removes tools from a session's "Allow for this chat" list;
// their next calls ask again. Unknown names are ignored.
func RevokeApprovals(s *protocol.Session, names []string) {
	if len(names) == 0 || len(s.Approvals) == 0 {
		return
	}
	drop := make(map[string]bool, len(names))
	for _, n := range names {
		drop[n] = true
	}
	kept := s.Approvals[:0:0]
	for _, a := range s.Approvals {
		if !drop[a.Tool] {
			kept = append(kept, a)
		}
	}
	if len(kept) == 0 {
		kept = nil
	}
	s.Approvals = kept
}
