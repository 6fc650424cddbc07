package lifecycle

import (
	"time"

	"github.com/rtcagent/rtcagent/internal/core"
	"github.com/rtcagent/rtcagent/internal/protocol"
	"github.com/rtcagent/rtcagent/internal/store"
	"github.com/rtcagent/rtcagent/internal/tools"
)

// UpdateRTCStatus moves an RTC forward to sent, executing or rejected. Repeating
// the status it already has is accepted (a retried request); moving backwards or out
// of a terminal status is a conflict.
func UpdateRTCStatus(tx store.Tx, c core.Caller, req *protocol.RTCUpdateStatusRequest) (*protocol.RTC, error) {
	if req.Status == protocol.RTCRejected {
		tx.Prefetch(store.Prefetch{TurnOfRTC: req.RTCID}) // endRTC reads them
	}
	r, err := core.RTCForDevice(tx, c, req.RTCID)
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
func SubmitResult(tx store.Tx, c core.Caller, req *protocol.RTCSubmitResultRequest) (*protocol.RTC, error) {
	tx.Prefetch(store.Prefetch{TurnOfRTC: req.RTCID}) // endRTC reads them
	r, err := core.RTCForDevice(tx, c, req.RTCID)
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
	if r.ToolName == tools.Elicitation && req.OK {
		// The MCP server gets only an answer that fits its question: one
		// that does not is refused, and the question stays open.
		if _, err := tools.CheckElicitAnswer(r.Arguments, req.Output); err != nil {
			return nil, protocol.Errorf(protocol.CodeInvalidArgument, "rtc %q: %v", r.ID, err)
		}
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

// recordDecision keeps the person's answer on the RTC (who, when, scope, reason)
// and, for "Allow for this chat", adds the tool to the session's approvals in the
// same transaction. A call that allow-for-chat may not cover (a protected path, a
// script) is recorded as allowed once. Queued calls of the same tool in the same
// step that the approval covers no longer need confirmation.
func recordDecision(tx store.Tx, c core.Caller, r *protocol.RTC, req *protocol.RTCUpdateStatusRequest) error {
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
func recordStanding(tx store.Sessions, r *protocol.RTC, d *protocol.Decision, allowable bool) error {
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
func allowForChat(tx store.Tx, c core.Caller, r *protocol.RTC, at time.Time) error {
	s, err := tx.SessionGet(r.SessionID)
	if err != nil {
		return err
	}
	if !s.HasApproval(r.ToolName) {
		s.Approvals = append(s.Approvals, protocol.ToolApproval{Tool: r.ToolName, DeviceID: c.DeviceID, RTCID: r.ID, GrantedAt: at})
		if err := core.EmitSession(tx, s, protocol.UpdSessionUpdated); err != nil {
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
