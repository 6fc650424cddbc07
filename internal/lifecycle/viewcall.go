package lifecycle

import (
	"encoding/json"
	"errors"
	"strings"

	"github.com/rtcagent/rtcagent/internal/core"
	"github.com/rtcagent/rtcagent/internal/protocol"
	"github.com/rtcagent/rtcagent/internal/store"
	"github.com/rtcagent/rtcagent/internal/tools"
)

// A tool's view (MCP Apps) may call a tool of its own MCP server: the server
// of the call whose card shows it. Such a call is an RTC like the model's
// calls of that server (executor server, the same work-mode rules, approvals,
// deadlines and audit record), with a tool_call_id that names the view's call
// and the view's idempotency key (core.ViewCallID): it is in no model message, so
// the model never sees it, and the browser shows what it asks under the
// view's card. While the view's call's turn runs or waits, the call is of
// that turn, which waits for it as for its step's calls (endRTC). Once that
// turn has ended, the call is a turn of its own (protocol.TurnKindApp): the
// chat's active turn while the call is open, ended by a stop like any turn,
// completed with its call, without a model step. Its id is derived from
// the view's call and key (core.ViewCallRTCID), so a repeated request finds it in
// whichever turn it is.

// ShownView returns call rtcID when the caller may act for its view (its
// calls, v1.app.call, and its reads, v1.app.resource): the call is theirs
// (core.RTCForDevice), a server call that shows a view and not itself a
// view's call, and it ran, so the page showed its view (core.ViewShown).
func ShownView(tx store.Tx, c core.Caller, rtcID string) (*protocol.RTC, error) {
	p, err := core.RTCForDevice(tx, c, rtcID)
	if err != nil {
		return nil, err
	}
	if p.Executor != protocol.RTCExecutorServer || p.App == "" || core.IsViewCall(p) {
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
	ID       string // the new RTC's id (core.ViewCallRTCID)
	// Lookup finds a tool a view may call by its full name ("<server>__<tool>").
	Lookup func(name string) (tools.Tool, bool)
	Limits protocol.Limits
	// StartTurn, when set, is asked before a call after the view's turn
	// ended is written (it starts a turn of its own, or is refused by plan
	// mode); an error refuses the call (the API's per-user rate of turns).
	StartTurn func() error
	// Trace gives the call its trace context; nil traces nothing.
	Trace Tracing
}

// Tracing gives a view's call its trace context (*telemetry.Tracer): a span
// in the trace of the turn it is of, and a trace of its own for a turn of
// its own, whose root span is that turn's.
type Tracing interface {
	NewTurnParent() string            // a new trace's root
	ChildParent(parent string) string // a span under parent
}

// CallFromView records the call a view of server call v.ParentID asks for as
// an RTC of that call's turn, decided like the model's calls: plan mode
// creates it rejected, a tool that needs confirmation waits pending for the
// person (unless "Allow for this chat" covers it), another is handed to the
// session's worker at once. Once the view's turn has ended, a call that is
// not refused starts a turn of its own (startViewTurn). The same v.ClientID
// for the same view returns the RTC the first request created, whatever
// happened since. It refuses, with the code the wire carries, a call the
// caller may not act on, one that shows no view, a tool the view's server
// does not offer to views, a second call while the view's previous one is
// open, a view past protocol.AppCallsPerView in its turn, a closed chat, and
// a call after the view's turn while another turn of the chat is active or
// queued.
func CallFromView(tx store.Tx, c core.Caller, v ViewCall) (*protocol.RTC, error) {
	p, err := ShownView(tx, c, v.ParentID)
	if err != nil {
		return nil, err
	}
	all, err := tx.RTCListByTurn(p.TurnID)
	if err != nil {
		return nil, err
	}
	id, prefix := core.ViewCallID(p.ID, v.ClientID), core.ViewCallPrefix(p.ID)
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
	// Calls in turns of their own exist only once the view's turn has ended.
	ended := protocol.TurnTerminal(t.Status)
	if ended {
		if x, err := tx.RTCGet(v.ID); err == nil && x.ToolCallID == id {
			return x, nil // a repeated request, in a turn of its own
		} else if err != nil && !errors.Is(err, store.ErrNotFound) {
			return nil, err
		}
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
	if made >= protocol.AppCallsPerView && !ended {
		return nil, protocol.Errorf(protocol.CodeRateLimited, "a view makes at most %d calls in its turn", protocol.AppCallsPerView)
	}
	s, err := tx.SessionGet(p.SessionID)
	if err != nil {
		return nil, err
	}
	if s.Status != protocol.SessionOpen {
		return nil, protocol.Errorf(protocol.CodeConflict, "session %q is closed", s.ID)
	}
	if ended {
		if err := noTurnActive(tx, s); err != nil {
			return nil, err
		}
	}
	r := &protocol.RTC{ID: v.ID, SessionID: p.SessionID, TurnID: p.TurnID, UserID: p.UserID, MessageID: p.MessageID,
		ToolCallID: id, Seq: seq + 1, Step: t.Step, ToolName: name, Arguments: v.Args, Executor: protocol.RTCExecutorServer}
	if ended && v.StartTurn != nil {
		// Counted before a refusal too: each call after the turn writes a call.
		if err := v.StartTurn(); err != nil {
			return nil, err
		}
	}
	d := tools.DecideTool(s.WorkMode, tool, v.Args)
	if d.Refused {
		// Refused at once: it needs no turn to run in.
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
	if ended {
		if t, err = startViewTurn(tx, s, r, v.Trace); err != nil {
			return nil, err
		}
	}
	if v.Trace != nil {
		r.TraceParent = v.Trace.ChildParent(t.TraceParent)
	}
	if err := Deliver(tx, r, ""); err != nil {
		return nil, err
	}
	// A waiting turn's checkpoint outlives the call's deadline, so the turn
	// resumes from it once the call ended.
	return r, keepCheckpoint(tx, t.ID, *r.DeadlineAt)
}

// noTurnActive refuses a call that would start a turn of its own while the
// chat has an active or a queued turn: the view calls once they ended.
func noTurnActive(tx store.Tx, s *protocol.Session) error {
	busy := s.ActiveTurnID
	if busy == "" {
		q, err := tx.TurnNextQueued(s.ID)
		if err != nil && !errors.Is(err, store.ErrNotFound) {
			return err
		}
		if q != nil {
			busy = q.ID
		}
	}
	if busy != "" {
		return protocol.Errorf(protocol.CodeConflict, "the view's turn has ended and turn %q of the chat has not: the view can call once it ends", busy)
	}
	return nil
}

// startViewTurn makes r, a view's call after its turn ended, the first and
// only call of a new turn of kind app: waiting for it (with a checkpoint
// that outlives its deadline, set by the caller) as the session's active
// turn, in a trace of its own. The transaction that ends the call completes
// the turn (endRTC).
func startViewTurn(tx store.Tx, s *protocol.Session, r *protocol.RTC, trace Tracing) (*protocol.Turn, error) {
	seq, err := tx.TurnMaxSeq(s.ID)
	if err != nil {
		return nil, err
	}
	t := &protocol.Turn{ID: core.NewID(), SessionID: s.ID, UserID: s.UserID, Seq: seq + 1, Kind: protocol.TurnKindApp,
		Status: protocol.TurnWaiting, Checkpoint: &protocol.TurnCheckpoint{ExpiresAt: tx.Now().Add(CheckpointGrace)}}
	if trace != nil {
		t.TraceParent = trace.NewTurnParent()
	}
	if err := core.EmitTurn(tx, t, ""); err != nil {
		return nil, err
	}
	s.ActiveTurnID = t.ID
	if err := core.EmitSession(tx, s, protocol.UpdSessionUpdated); err != nil {
		return nil, err
	}
	r.TurnID, r.Seq, r.Step = t.ID, 1, 0
	return t, nil
}
