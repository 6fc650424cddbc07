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

// auditState is the state of the RTC's audit record after the change about
// to be written (from status prev; "" for a new RTC). The record is the RTC
// with that state, in the RTC's own row (store.Audit), so a call never exists,
// runs or ends without its record saying so. It starts from the state the RTC
// carries (r.Audit), never read back; act is nil for changes the server makes
// (creation, delivery, deadline, the end of a turn).
func auditState(tx store.Tx, r *protocol.RTC, prev string, act *actor) (*protocol.AuditState, error) {
	now := tx.Now()
	var a *protocol.AuditState
	if prev != "" && r.Audit != nil {
		st := *r.Audit
		a = &st
	} else {
		// A new call, or one stored before calls were audited: its record
		// starts now.
		var err error
		if a, err = newAuditState(tx, r, now); err != nil {
			return nil, err
		}
	}
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
		a.Execution = clampExecution(*act.execution, r.CreatedAt, a.DeliveredAt, now)
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

// newAuditState starts the record of a new RTC with the decision its work
// mode made: calls that need no confirmation are allowed, plan mode refuses, a
// call that needs a person waits for one (askUser is shown to them).
func newAuditState(tx store.Sessions, r *protocol.RTC, now time.Time) (*protocol.AuditState, error) {
	s, err := tx.SessionGet(r.SessionID)
	if err != nil {
		return nil, err
	}
	return &protocol.AuditState{DeviceID: s.DeviceID, WorkMode: s.WorkMode, NeedsConfirmation: r.NeedsConfirmation,
		Decision: workModeDecision(r, now)}, nil
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
func clampExecution(e protocol.RTCExecution, created time.Time, delivered *time.Time, now time.Time) *protocol.RTCExecution {
	lo := created
	if delivered != nil {
		lo = *delivered
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
