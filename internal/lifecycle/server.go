package lifecycle

import (
	"time"

	"github.com/rtcagent/rtcagent/internal/core"
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
// A server's request to use the model is not such a call: the call that made
// it runs it, and nothing is queued.
func queueExecution(tx store.Inbox, r *protocol.RTC) error {
	if tools.IsSampling(r.ToolName) {
		return nil
	}
	return tx.InboxInsert(&store.InboxItem{SessionID: r.SessionID, Kind: core.KindRTCExecute, TurnID: r.TurnID})
}

// ApproveRTC records the person's approval of a server call that needs
// confirmation and hands it to the session's worker, in one transaction. An
// approval with scope "session" ("Allow for this chat") also adds the tool to
// the session's approvals, as for a browser call. An approval repeated, of a
// call that needs none, or of a call that ended already returns the RTC
// unchanged.
func ApproveRTC(tx store.Tx, c core.Caller, req *protocol.RTCApproveRequest) (*protocol.RTC, error) {
	r, err := core.RTCForDevice(tx, c, req.RTCID)
	if err != nil {
		return nil, err
	}
	if r.Executor != protocol.RTCExecutorServer {
		return nil, protocol.Errorf(protocol.CodeInvalidArgument, "rtc %q is executed by the browser; approve runs only server calls", r.ID)
	}
	if protocol.RTCTerminal(r.Status) || r.Approved() || !r.NeedsConfirmation {
		return r, nil
	}
	if r.Status == protocol.RTCQueued {
		return nil, protocol.Errorf(protocol.CodeConflict, "rtc %q is queued behind an earlier call of its session", r.ID)
	}
	prev := r.Status
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
// from its stored status), before the call is made, and reports whether it may
// make it. The call is decided again from the session as it is now
// (decideAgain): plan mode ends it as rejected; a revoked "Allow for this chat"
// or a stricter mode makes it wait for the person's approval instead.
func StartServerRTC(tx store.Tx, r *protocol.RTC) (bool, error) {
	prev := r.Status
	refused, err := decideAgain(tx, r)
	if err != nil {
		return false, err
	}
	if refused {
		return false, refuse(tx, r, prev)
	}
	if r.NeedsConfirmation && !r.Approved() {
		// Shown for approval: the person's time to answer starts now.
		d := tx.Now().Add(time.Duration(r.TimeoutMS) * time.Millisecond)
		r.DeadlineAt = &d
		return false, casConflict(EmitRTC(tx, r, prev), r.ID)
	}
	r.Status = protocol.RTCExecuting
	if err := EmitRTC(tx, r, prev); err != nil {
		return false, casConflict(err, r.ID)
	}
	return true, nil
}

// EndServerRTC records the outcome of a server call exactly once; when the RTC
// ended meanwhile (stopped, timed out) it changes nothing.
func EndServerRTC(tx store.Tx, id string, res tools.ServerResult) (*protocol.RTC, error) {
	r, open, err := endingServerRTC(tx, id)
	if err != nil || !open {
		return r, err
	}
	prev := r.Status
	if res.OK {
		r.Status, r.Output, r.StructuredOutput = protocol.RTCCompleted, res.Output, res.Structured
	} else {
		r.Status, r.Error = protocol.RTCFailed, res.Error
		if r.Error == "" {
			r.Error = "the tool failed without a message"
		}
	}
	return r, endRTC(tx, r, prev, nil)
}

// TimeOutServerRTC ends a server call that its deadline cut off, before the
// MCP server answered, as timeout; like EndServerRTC it changes nothing when the
// RTC ended meanwhile. The worker knows its call's context reached the RTC's
// deadline, so unlike ExpireRTC it does not compare the deadline with the
// transaction's clock.
func TimeOutServerRTC(tx store.Tx, id string) (*protocol.RTC, error) {
	r, open, err := endingServerRTC(tx, id)
	if err != nil || !open {
		return r, err
	}
	prev := r.Status
	r.Status, r.Error = protocol.RTCTimeout, "no result before the deadline"
	return r, endRTC(tx, r, prev, nil)
}

// endingServerRTC reads server call id as it ends: open is false when it ended
// already; otherwise its open questions are ended first.
func endingServerRTC(tx store.Tx, id string) (r *protocol.RTC, open bool, err error) {
	r, err = tx.RTCGet(id)
	if err != nil || protocol.RTCTerminal(r.Status) {
		return r, false, err
	}
	return r, true, EndElicitations(tx, r, "the tool's call ended")
}

// ProgressServerRTC records the progress of a server call that is executing
// (a compare-and-set on that status) as one rtc.updated, and reports whether it
// did: a call that ended meanwhile is left as it is. Progress is no decision
// and no outcome, so the audit record is not touched.
func ProgressServerRTC(tx store.Tx, id string, p protocol.RTCProgress) (bool, error) {
	r, err := tx.RTCGet(id)
	if err != nil || r.Status != protocol.RTCExecuting {
		return false, err
	}
	r.Progress = &p
	if err := writeRTC(tx, r, protocol.RTCExecuting); err != nil {
		return false, casConflict(err, r.ID)
	}
	return true, nil
}

// TaskServerRTC records the MCP task an executing server call became (a
// compare-and-set on that status) as one rtc.updated, and reports whether it
// did: a call that ended meanwhile is left as it is.
func TaskServerRTC(tx store.Tx, id, task string) (bool, error) {
	r, err := tx.RTCGet(id)
	if err != nil || r.Status != protocol.RTCExecuting {
		return false, err
	}
	r.TaskID = task
	if err := writeRTC(tx, r, protocol.RTCExecuting); err != nil {
		return false, casConflict(err, r.ID)
	}
	return true, nil
}
