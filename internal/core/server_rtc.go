package core

import (
	"encoding/json"

	"github.com/rtcagent/rtcagent/internal/protocol"
	"github.com/rtcagent/rtcagent/internal/store"
	"github.com/rtcagent/rtcagent/internal/tools"
)

// Calls the server executes (tools of MCP servers) are RTCs like the browser's:
// the same states, deadlines, work-mode rules and results. The browser only
// confirms them (ApproveRTC) or refuses them (update_status rejected); the
// session's worker records executing, runs the call and ends it with
// EndServerRTC, through the same compare-and-set as a browser's result.

func errServerRuns(id string) error {
	return protocol.Errorf(protocol.CodeConflict, "rtc %q is executed by the server; the browser may only approve or reject it", id)
}

// queueExecution asks the session's worker to run the turn's open server call.
func queueExecution(tx store.Tx, r *protocol.RTC) error {
	return tx.InboxInsert(&store.InboxItem{SessionID: r.SessionID, Kind: KindRTCExecute, TurnID: r.TurnID})
}

// ApproveRTC records the person's approval of a server call that needs
// confirmation and hands it to the session's worker, in one transaction. An
// approval with scope "session" ("Allow for this chat") also adds the tool to
// the session's approvals, as for a browser call. An approval repeated, of a
// call that needs none, or of a call that ended already returns the RTC
// unchanged.
func ApproveRTC(tx store.Tx, c Caller, req *protocol.RTCApproveRequest) (*protocol.RTC, error) {
	r, err := RTCForDevice(tx, c, req.RTCID)
	if err != nil {
		return nil, err
	}
	if r.Executor != protocol.RTCExecutorServer {
		return nil, protocol.Errorf(protocol.CodeInvalidArgument, "rtc %q is executed by the browser; approve runs only server calls", r.ID)
	}
	if protocol.RTCTerminal(r.Status) || r.Approved || !r.NeedsConfirmation {
		return r, nil
	}
	if r.Status == protocol.RTCQueued {
		return nil, protocol.Errorf(protocol.CodeConflict, "rtc %q is queued behind an earlier call of its session", r.ID)
	}
	prev := r.Status
	r.Approved = true
	r.Decision = &protocol.Decision{Decision: protocol.DecisionAllow, Scope: protocol.ScopeOnce, DeviceID: c.DeviceID, At: tx.Now()}
	if req.Approval != nil && req.Approval.Scope == protocol.ScopeSession && tools.AllowableForChat(r.ToolName, r.Arguments) {
		r.Decision.Scope = protocol.ScopeSession
		if err := allowForChat(tx, c, r, r.Decision.At); err != nil {
			return nil, err
		}
	}
	if r.Status == protocol.RTCPending {
		r.Status = protocol.RTCSent
	}
	if err := emitRTCBy(tx, r, prev, &actor{caller: c}); err != nil {
		return nil, casConflict(err, r.ID)
	}
	return r, queueExecution(tx, r)
}

// StartServerRTC records that the server starts the call now (compare-and-set
// from its stored status), before the call is made.
func StartServerRTC(tx store.Tx, r *protocol.RTC) error {
	prev := r.Status
	r.Status = protocol.RTCExecuting
	if err := EmitRTC(tx, r, prev); err != nil {
		return casConflict(err, r.ID)
	}
	return nil
}

// EndServerRTC records the outcome of a server call exactly once; when the RTC
// ended meanwhile (stopped, timed out) it changes nothing.
func EndServerRTC(tx store.Tx, id string, ok bool, output json.RawMessage, errText string) (*protocol.RTC, error) {
	r, err := tx.RTCGet(id)
	if err != nil || protocol.RTCTerminal(r.Status) {
		return r, err
	}
	prev := r.Status
	if ok {
		r.Status, r.Output = protocol.RTCCompleted, output
	} else {
		r.Status, r.Error = protocol.RTCFailed, errText
		if r.Error == "" {
			r.Error = "the tool failed without a message"
		}
	}
	return r, endRTC(tx, r, prev, nil)
}
