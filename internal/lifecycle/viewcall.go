package lifecycle

import (
	"encoding/json"
	"strings"

	"github.com/rtcagent/rtcagent/internal/core"
	"github.com/rtcagent/rtcagent/internal/protocol"
	"github.com/rtcagent/rtcagent/internal/store"
	"github.com/rtcagent/rtcagent/internal/tools"
)

// A tool's view (MCP Apps) may call a tool of its own MCP server: the server
// of the call whose card shows it. Such a call is an RTC like the model's
// calls of that server (executor server, the same work-mode rules, approvals,
// deadlines and audit record), of the view's call's turn, with a
// tool_call_id that names the view's call and the view's idempotency key
// (ViewCallID): it is in no model message, so the model never sees it, and
// the browser shows what it asks under the view's card. The turn waits for
// it as for its step's calls (endRTC), a stop or the chat's close ends it
// with the turn, and once the turn has ended a view calls nothing: the call
// would belong to no turn that a stop could end.

// viewCallPrefix starts the tool_call_id of every call of view parentID.
func viewCallPrefix(parentID string) string { return "app:" + parentID + ":" }

// ViewCallID is the tool_call_id of the call a view of server call parentID
// asked for with idempotency key clientID.
func ViewCallID(parentID, clientID string) string { return viewCallPrefix(parentID) + clientID }

// IsViewCall reports whether r is a call a tool's view asked for.
func IsViewCall(r *protocol.RTC) bool { return strings.HasPrefix(r.ToolCallID, "app:") }

// ShownView returns call rtcID when the caller may act for its view (its
// calls, v1.app.call, and its reads, v1.app.resource): the call is theirs
// (core.RTCForDevice), a server call that shows a view and not itself a
// view's call, and it ran, so the page showed its view (core.ViewShown).
func ShownView(tx store.Tx, c core.Caller, rtcID string) (*protocol.RTC, error) {
	p, err := core.RTCForDevice(tx, c, rtcID)
	if err != nil {
		return nil, err
	}
	if p.Executor != protocol.RTCExecutorServer || p.App == "" || IsViewCall(p) {
		return nil, protocol.Errorf(protocol.CodeInvalidArgument, "rtc %q is not a call that shows a tool's view", p.ID)
	}
	if !core.ViewShown(p) {
		return nil, protocol.Errorf(protocol.CodeConflict, "rtc %q has not run: its view is not shown", p.ID)
	}
	return p, nil
}

// ViewCall is what a view asks to call.
type ViewCall struct {
	ParentID string // the call whose card shows the view
	ClientID string // the view's idempotency key
	Tool     string // the tool's name at its server
	Args     json.RawMessage
	ID       string // the new RTC's id
	// Lookup finds a tool a view may call by its full name ("<server>__<tool>").
	Lookup func(name string) (tools.Tool, bool)
	Limits protocol.Limits
}

// CallFromView records the call a view of server call v.ParentID asks for as
// an RTC of that call's turn, decided like the model's calls: plan mode
// creates it rejected, a tool that needs confirmation waits pending for the
// person (unless "Allow for this chat" covers it), another is handed to the
// session's worker at once. The same v.ClientID for the same view returns the
// RTC the first request created, whatever happened since. It refuses, with
// the code the wire carries, a call the caller may not act on, one that shows
// no view, a turn that has ended, a tool the view's server does not offer to
// views, a second call while the view's previous one is open, and a view past
// protocol.AppCallsPerView.
func CallFromView(tx store.Tx, c core.Caller, v ViewCall) (*protocol.RTC, error) {
	p, err := ShownView(tx, c, v.ParentID)
	if err != nil {
		return nil, err
	}
	all, err := tx.RTCListByTurn(p.TurnID)
	if err != nil {
		return nil, err
	}
	id, prefix := ViewCallID(p.ID, v.ClientID), viewCallPrefix(p.ID)
	seq, made := 0, 0
	var open *protocol.RTC
	for i := range all {
		x := &all[i]
		seq = max(seq, x.Seq)
		if !strings.HasPrefix(x.ToolCallID, prefix) {
			continue
		}
		if x.ToolCallID == id {
			return x, nil // a repeated request
		}
		made++
		if !protocol.RTCTerminal(x.Status) {
			open = x
		}
	}
	t, err := tx.TurnGet(p.TurnID)
	if err != nil {
		return nil, err
	}
	if protocol.TurnTerminal(t.Status) {
		return nil, protocol.Errorf(protocol.CodeConflict, "the turn that showed this view has ended (%s): a view calls tools only while its turn runs or waits; send a message to go on", t.Status)
	}
	server, _, _ := strings.Cut(p.ToolName, tools.ServerToolSeparator)
	name := server + tools.ServerToolSeparator + v.Tool
	tool, ok := v.Lookup(name)
	if !ok {
		return nil, protocol.Errorf(protocol.CodeNotFound, "the MCP server %q offers its views no tool %q", server, v.Tool)
	}
	if open != nil {
		return nil, protocol.Errorf(protocol.CodeConflict, "the view's call %q has not ended: a view makes one call at a time", open.ID)
	}
	if made >= protocol.AppCallsPerView {
		return nil, protocol.Errorf(protocol.CodeRateLimited, "a view makes at most %d calls", protocol.AppCallsPerView)
	}
	s, err := tx.SessionGet(p.SessionID)
	if err != nil {
		return nil, err
	}
	if s.Status != protocol.SessionOpen {
		return nil, protocol.Errorf(protocol.CodeConflict, "session %q is closed", s.ID)
	}
	r := &protocol.RTC{ID: v.ID, SessionID: p.SessionID, TurnID: p.TurnID, UserID: p.UserID, MessageID: p.MessageID,
		ToolCallID: id, Seq: seq + 1, Step: t.Step, ToolName: name, Arguments: v.Args, Executor: protocol.RTCExecutorServer}
	d := tools.DecideTool(s.WorkMode, tool, v.Args)
	if d.Refused {
		r.Status, r.Error = protocol.RTCRejected, tools.PlanRefusal(name)
		return r, EmitRTC(tx, r, "")
	}
	if d.NeedsConfirmation {
		if a, ok := s.Approval(name); ok && tools.AllowableForChat(name, v.Args) {
			d.NeedsConfirmation = false
			r.Decision = &protocol.Decision{Decision: protocol.DecisionAllow, Scope: protocol.ScopeSession, Standing: true, DeviceID: a.DeviceID, At: a.GrantedAt}
		}
	}
	r.NeedsConfirmation = d.NeedsConfirmation
	lim := v.Limits.WithDefaults()
	budget := lim.ExecTimeout
	if tools.MayAsk(d, tool) {
		budget = lim.HumanTimeout
	}
	r.TimeoutMS = budget.Milliseconds()
	r.Policy = &protocol.CallPolicy{Kind: string(tool.Kind)}
	if budget != lim.HumanTimeout {
		r.Policy.AskTimeoutMS = lim.HumanTimeout.Milliseconds()
	}
	if err := Deliver(tx, r, ""); err != nil {
		return nil, err
	}
	// A waiting turn's checkpoint outlives the call's deadline, so the turn
	// resumes from it once the call ended.
	return r, keepCheckpoint(tx, t.ID, *r.DeadlineAt)
}
