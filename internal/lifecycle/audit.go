package lifecycle

import (
	"time"

	"github.com/rtcagent/rtcagent/internal/core"
	"github.com/rtcagent/rtcagent/internal/protocol"
	"github.com/rtcagent/rtcagent/internal/store"
	"github.com/rtcagent/rtcagent/internal/tools"
)

// actor is the person's side of an RTC change that came through the API: the
// caller (user and device), the reason of a refusal and the browser's execution
// report.
type actor struct {
	caller    core.Caller
	reason    string
	execution *protocol.RTCExecution
}

// auditRecord is the RTC's audit record after the change about to be written
// (from status prev; "" for a new RTC): the caller writes it in the same
// transaction, so a call never exists, runs or ends without its record saying
// so. It is built from the RTC and the state the RTC carries (r.Audit), never
// read back; act is nil for changes the server makes (creation, delivery,
// deadline, the end of a turn).
func auditRecord(tx store.Tx, r *protocol.RTC, prev string, act *actor) (*protocol.AuditRecord, error) {
	now := tx.Now()
	var a *protocol.AuditRecord
	var err error
	switch {
	case prev == "":
		if a, err = newAuditRecord(tx, r, now); err != nil {
			return nil, err
		}
	case r.Audit != nil:
		a = protocol.AuditRecordOf(r)
	default:
		// Stored before calls were audited: its record starts now.
		if a, err = newAuditRecord(tx, r, now); err != nil {
			return nil, err
		}
	}
	a.Status, a.Output, a.Error = r.Status, r.Output, r.Error
	if r.Status == protocol.RTCPending && a.DeliveredAt == nil {
		a.DeliveredAt = &now
	}
	if r.Status == protocol.RTCExecuting && a.StartedAt == nil {
		a.StartedAt = &now
	}
	d := &a.Decision
	if act == nil && prev != "" && (a.NeedsConfirmation != r.NeedsConfirmation || r.Status == protocol.RTCRejected) {
		// Decided again before it started (decideAgain): a revoke, another
		// work mode.
		a.NeedsConfirmation = r.NeedsConfirmation
		*d = workModeDecision(r, now)
	}
	if d.Outcome == "" && act != nil {
		// A person answered: running the call (or its result) means they
		// allowed it, a rejection that they refused it.
		switch r.Status {
		case protocol.RTCExecuting, protocol.RTCCompleted:
			*d = protocol.AuditDecision{Outcome: protocol.DecisionAllowed, By: protocol.DecidedByUser, DeviceID: act.caller.DeviceID, At: &now}
		case protocol.RTCRejected:
			*d = protocol.AuditDecision{Outcome: protocol.DecisionDenied, By: protocol.DecidedByUser, DeviceID: act.caller.DeviceID, At: &now, Reason: act.reason}
		}
	}
	if p := r.Decision; p != nil {
		// The person's answer as the RTC keeps it: its scope, their own words,
		// or an earlier "Allow for this chat" that let the call run unasked.
		outcome := protocol.DecisionAllowed
		if p.Decision == protocol.DecisionDeny {
			outcome = protocol.DecisionDenied
		}
		at := p.At
		reason := d.Reason
		if p.Reason != "" {
			reason = p.Reason
		}
		*d = protocol.AuditDecision{Outcome: outcome, By: protocol.DecidedByUser, DeviceID: p.DeviceID, At: &at, Reason: reason,
			Scope: p.Scope, Standing: p.Standing}
	}
	if act != nil && act.execution != nil {
		a.Execution = clampExecution(*act.execution, a, now)
	}
	if protocol.RTCTerminal(r.Status) {
		if a.EndedAt == nil {
			a.EndedAt = &now
		}
		if d.Outcome == "" && act == nil {
			switch r.Status {
			case protocol.RTCTimeout:
				*d = protocol.AuditDecision{Outcome: protocol.DecisionTimeout, By: protocol.DecidedByServer, At: &now, Reason: r.Error}
			case protocol.RTCFailed:
				*d = protocol.AuditDecision{Outcome: protocol.DecisionCancelled, By: protocol.DecidedByServer, At: &now, Reason: r.Error}
			}
		}
	}
	return a, nil
}

// newAuditRecord starts the record of a new RTC with the decision its work mode
// made: calls that need no confirmation are allowed, plan mode refuses, a call
// that needs a person waits for one (askUser is shown to them).
func newAuditRecord(tx store.Sessions, r *protocol.RTC, now time.Time) (*protocol.AuditRecord, error) {
	s, err := tx.SessionGet(r.SessionID)
	if err != nil {
		return nil, err
	}
	a := &protocol.AuditRecord{RTCID: r.ID, UserID: r.UserID, SessionID: r.SessionID, TurnID: r.TurnID, DeviceID: s.DeviceID,
		ToolName: r.ToolName, ToolCallID: r.ToolCallID, Arguments: r.Arguments, WorkMode: s.WorkMode,
		NeedsConfirmation: r.NeedsConfirmation, CreatedAt: r.CreatedAt, TraceID: protocol.TraceID(r.TraceParent)}
	a.Decision = workModeDecision(r, now)
	return a, nil
}

// workModeDecision is the decision the work mode makes on r without a person:
// none when r needs one.
func workModeDecision(r *protocol.RTC, now time.Time) protocol.AuditDecision {
	auto := func(outcome, reason string) protocol.AuditDecision {
		return protocol.AuditDecision{Outcome: outcome, By: protocol.DecidedByWorkMode, At: &now, Reason: reason}
	}
	switch {
	case r.Status == protocol.RTCRejected:
		return auto(protocol.DecisionDenied, r.Error)
	case r.Status == protocol.RTCFailed:
		// Refused before any decision (unknown tool, bad arguments): no decision.
	case tools.AsksPerson(r.ToolName):
		return auto(protocol.DecisionShown, "")
	case !r.NeedsConfirmation:
		return auto(protocol.DecisionAllowed, "")
	}
	return protocol.AuditDecision{}
}

// clampExecution keeps the browser's report of a run within what the server saw
// of the call (from its delivery, or its creation, to now): the times come from
// another clock and from outside input.
func clampExecution(e protocol.RTCExecution, a *protocol.AuditRecord, now time.Time) *protocol.RTCExecution {
	lo := a.CreatedAt
	if a.DeliveredAt != nil {
		lo = *a.DeliveredAt
	}
	clamp := func(t time.Time) time.Time {
		if t.Before(lo) {
			return lo
		}
		if t.After(now) {
			return now
		}
		return t
	}
	e.StartedAt, e.EndedAt = clamp(e.StartedAt).UTC(), clamp(e.EndedAt).UTC()
	if e.EndedAt.Before(e.StartedAt) {
		e.EndedAt = e.StartedAt
	}
	return &e
}
