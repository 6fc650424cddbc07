package e2e

import (
	"context"
	"encoding/json"
	"errors"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rtcagent/rtcagent/internal/config"
	"github.com/rtcagent/rtcagent/internal/protocol"
	"github.com/rtcagent/rtcagent/internal/testkit/mcptest"
)

// viewScript shows the test server's panel and then asks the person a
// question, so the turn waits while its view makes calls.
const viewScript = `{"name": "mcp-view", "turns": [{"match": "(?i)panel", "steps": [
  {"tool_calls": [{"name": "test__panel", "arguments": {"title": "Sales"}}]},
  {"tool_calls": [{"name": "askUser", "arguments": {"questions": [{"question": "Is the panel right?", "options": [{"label": "yes"}, {"label": "no"}]}]}}]},
  {"text": "after: {{last_result}}"}
]}]}`

// watching is a browser that runs and confirms nothing (another device, another user).
func watching() browserOpt { return func(b *browser) { b.execute = false } }

// codeOf is the protocol code of err ("" for none or another error).
func codeOf(err error) string {
	var pe *protocol.Error
	if errors.As(err, &pe) {
		return pe.Code
	}
	return ""
}

// appCall asks for a view's call; it returns the RTC or the error.
func (b *browser) appCall(req protocol.AppCallRequest) (protocol.RTC, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	data, err := b.call(ctx, protocol.MethodAppCall, req)
	if err != nil {
		return protocol.RTC{}, err
	}
	var res protocol.RTCResult
	if err := json.Unmarshal(data, &res); err != nil {
		b.t.Fatal(err)
	}
	return res.RTC, nil
}

// showPanel sends, in edit mode, the message whose turn shows the test
// server's panel, approves the panel's call and waits for the question the
// next step asks. It returns the turn, the ended panel call and the question.
func (b *browser) showPanel() (protocol.MessageSendResult, protocol.RTC, protocol.RTC) {
	b.t.Helper()
	res := b.sendMode("", "show the panel", protocol.ModeEdit)
	panel := b.waitRTC(res.SessionID, "test__panel", protocol.RTCPending)
	if err := b.retry(protocol.MethodRTCApprove, protocol.RTCApproveRequest{RTCID: panel.ID, ClientID: "approve-panel"}); err != nil {
		b.t.Fatal(err)
	}
	q := b.waitRTC(res.SessionID, "askUser", protocol.RTCPending)
	return res, b.rtcEnded(panel.ID), q
}

// answer runs question q as the person would: executing, then its answer.
func (b *browser) answer(q protocol.RTC, output string) {
	b.t.Helper()
	if err := b.retry(protocol.MethodRTCUpdateStatus, protocol.RTCUpdateStatusRequest{RTCID: q.ID, Status: protocol.RTCExecuting, ClientID: "exec-" + q.ID}); err != nil {
		b.t.Fatal(err)
	}
	if err := b.retry(protocol.MethodRTCSubmitResult, protocol.RTCSubmitResultRequest{RTCID: q.ID, ClientID: "res-" + q.ID, OK: true, Output: jsonOf(output)}); err != nil {
		b.t.Fatal(err)
	}
}

// waitRTC waits until the session has a call of tool in status and returns it.
func (b *browser) waitRTC(sessionID, tool, status string) protocol.RTC {
	b.t.Helper()
	var r protocol.RTC
	waitFor(b.t, tool+" "+status, 30*time.Second, func() bool {
		for _, x := range b.rtcsOf(sessionID) {
			if x.ToolName == tool && x.Status == status {
				r = x
				return true
			}
		}
		return false
	})
	return r
}

// rtcEnded waits until RTC id ends and returns it.
func (b *browser) rtcEnded(id string) protocol.RTC {
	b.t.Helper()
	var r protocol.RTC
	waitFor(b.t, "rtc "+id+" to end", 30*time.Second, func() bool {
		var res protocol.RTCResult
		b.mustCall(protocol.MethodRTCGet, protocol.IDRequest{RTCID: id}, &res)
		r = res.RTC
		return protocol.RTCTerminal(r.Status)
	})
	return r
}

// TestMCPViewCalls: a tool's view calls tools of its own MCP server through
// v1.app.call while its turn waits: the call is an RTC of the view's call's
// turn, run by the server under the session's work mode and approvals (a tool
// with effects asks the person, a read-only one runs at once, plan mode
// refuses), kept once by its client_id, audited, and never shown to the
// model. Only the view's own user and device may ask, only for a call that
// shows a view, only tools of its server offered to views, one call at a
// time, with bounded arguments; once the turn has ended, each call is a turn
// of its own.
func TestMCPViewCalls(t *testing.T) {
	web := httptest.NewServer(mcptest.Handler(mcptest.Options{}))
	t.Cleanup(web.Close)
	srv := startServer(t, mustScript(t, viewScript), func(c *config.Config) {
		c.MCPConfig = mcpConfig(t, filepath.Join(t.TempDir(), "calls"), web.URL)
	})
	// The person: nothing runs or is approved but what this test does.
	b := newBrowser(t, srv, "alice", "dev-a", watching())
	other := newBrowser(t, srv, "alice", "dev-b", watching())
	mallory := newBrowser(t, srv, "mallory", "dev-m", watching())

	res, panel, q := b.showPanel()
	if !strings.Contains(string(panel.StructuredOutput), `"figures":3`) || strings.Contains(string(panel.Output), "figures") {
		t.Fatalf("the panel's structured result apart from its text: output %s, structured %s", panel.Output, panel.StructuredOutput)
	}
	viewCallsWhileWaiting(t, b, other, mallory, panel, q)

	// The question is answered while a view's call runs: the turn waits for
	// that call too before it goes on.
	slow, err := b.appCall(protocol.AppCallRequest{RTCID: panel.ID, Tool: "sleep", Arguments: []byte(`{"ms": 1500, "tag": "view"}`), ClientID: "slow"})
	if err != nil {
		t.Fatal(err)
	}
	if err := b.retry(protocol.MethodRTCApprove, protocol.RTCApproveRequest{RTCID: slow.ID, ClientID: "approve-slow"}); err != nil {
		t.Fatal(err)
	}
	b.waitRTC(res.SessionID, "test__sleep", protocol.RTCExecuting)
	b.answer(q, "yes")
	var during protocol.TurnResult
	b.mustCall(protocol.MethodTurnGet, protocol.IDRequest{TurnID: res.TurnID}, &during)
	if during.Turn.Status != protocol.TurnWaiting {
		t.Fatalf("the turn went on while its view's call ran: %s", during.Turn.Status)
	}
	if tr := b.waitTurn(res.TurnID, 60*time.Second); tr.Status != protocol.TurnCompleted {
		t.Fatalf("turn %s %+v", tr.Status, tr.Error)
	}
	if done := b.rtcEnded(slow.ID); done.Status != protocol.RTCCompleted {
		t.Fatalf("the slow view's call: %+v", done)
	}
	msgs := b.assistantMessages(res.SessionID)
	// The turn resumed once its question was answered, not when a view's
	// call ended before, and the model saw none of them.
	if last := msgs[len(msgs)-1].Text; last != "after: yes" {
		t.Fatalf("the model read %q", last)
	}

	// The turn ended: a repeated call returns its RTC, and a new one runs
	// as a turn of its own.
	again, err := b.appCall(protocol.AppCallRequest{RTCID: panel.ID, Tool: "panel_refresh", ClientID: "refresh-1"})
	if err != nil || again.Status != protocol.RTCCompleted || string(again.Output) != `"refreshed"` {
		t.Fatalf("the repeated call after the turn: %+v %v", again, err)
	}
	viewCallsAfterTheTurn(t, b, res.SessionID, res.TurnID, panel, len(msgs))

	// Every view call has its audit record, with who decided.
	byRTC := map[string]protocol.AuditRecord{}
	for _, a := range b.auditOf(res.SessionID) {
		byRTC[a.RTCID] = a
	}
	if a, ok := byRTC[again.ID]; !ok || a.Decision.Outcome != protocol.DecisionAllowed || a.Decision.By != protocol.DecidedByUser ||
		a.Status != protocol.RTCCompleted || a.ToolName != "test__panel_refresh" {
		t.Fatalf("the audit of the view's call: %+v", a)
	}
	var refused int
	for _, a := range byRTC {
		if a.ToolName == "test__panel_refresh" && a.Status == protocol.RTCRejected && a.Decision.Outcome == protocol.DecisionDenied {
			refused++
		}
	}
	if refused != 1 {
		t.Fatalf("plan mode's refusal of a view's call is not audited as denied: %d records", refused)
	}
}

// viewCallsWhileWaiting is the part of TestMCPViewCalls that runs while the
// turn waits on its question q.
func viewCallsWhileWaiting(t *testing.T, b, other, mallory *browser, panel, q protocol.RTC) {
	t.Helper()
	if panel.Status != protocol.RTCCompleted || panel.App != "/mcp-apps/test__panel" {
		t.Fatalf("the panel's call: %+v", panel)
	}
	call := func(who *browser, req protocol.AppCallRequest) (protocol.RTC, error) {
		if req.RTCID == "" {
			req.RTCID = panel.ID
		}
		return who.appCall(req)
	}
	for _, c := range []struct {
		who  *browser
		req  protocol.AppCallRequest
		code string
	}{
		{mallory, protocol.AppCallRequest{Tool: "panel_refresh", ClientID: "m"}, protocol.CodeNotFound},               // another user's call
		{other, protocol.AppCallRequest{Tool: "panel_refresh", ClientID: "o"}, protocol.CodeForbidden},                // another device's
		{b, protocol.AppCallRequest{RTCID: q.ID, Tool: "panel_refresh", ClientID: "q"}, protocol.CodeInvalidArgument}, // a call with no view
		{b, protocol.AppCallRequest{Tool: "nope", ClientID: "n"}, protocol.CodeNotFound},                              // a tool its server lacks
		{b, protocol.AppCallRequest{Tool: "web__echo", ClientID: "w"}, protocol.CodeNotFound},                         // another server's tool
		{b, protocol.AppCallRequest{Tool: "a b", ClientID: "s"}, protocol.CodeInvalidArgument},
		{b, protocol.AppCallRequest{Tool: strings.Repeat("x", 65), ClientID: "l"}, protocol.CodeInvalidArgument},
		{b, protocol.AppCallRequest{Tool: "echo", Arguments: []byte(`[1]`), ClientID: "a"}, protocol.CodeInvalidArgument},
		{b, protocol.AppCallRequest{Tool: "echo", Arguments: jsonOf(map[string]string{"text": strings.Repeat("x", protocol.AppCallArgsBytes)}), ClientID: "b"}, protocol.CodeTooLarge},
		{b, protocol.AppCallRequest{Tool: "echo"}, protocol.CodeInvalidArgument}, // no client_id
	} {
		if _, err := call(c.who, c.req); codeOf(err) != c.code {
			t.Errorf("%s %+v: %v, want %s", c.who.user, c.req, err, c.code)
		}
	}

	// A tool with effects asks the person (edit mode); the same client_id
	// returns the same RTC; a second call while it waits is refused.
	v, err := call(b, protocol.AppCallRequest{Tool: "panel_refresh", ClientID: "refresh-1"})
	if err != nil || v.Status != protocol.RTCPending || !v.NeedsConfirmation || v.Executor != protocol.RTCExecutorServer ||
		v.ToolName != "test__panel_refresh" || v.TurnID != panel.TurnID || !strings.HasPrefix(v.ToolCallID, "app:"+panel.ID+":") {
		t.Fatalf("the view's call: %+v %v", v, err)
	}
	if same, err := call(b, protocol.AppCallRequest{Tool: "panel_refresh", ClientID: "refresh-1"}); err != nil || same.ID != v.ID {
		t.Fatalf("the repeated call: %+v %v", same, err)
	}
	if _, err := call(b, protocol.AppCallRequest{Tool: "echo", Arguments: []byte(`{"text":"x"}`), ClientID: "second"}); codeOf(err) != protocol.CodeConflict {
		t.Fatalf("a second call while the first waits: %v", err)
	}
	if err := b.retry(protocol.MethodRTCApprove, protocol.RTCApproveRequest{RTCID: v.ID, ClientID: "approve-view"}); err != nil {
		t.Fatal(err)
	}
	if done := b.rtcEnded(v.ID); done.Status != protocol.RTCCompleted || string(done.Output) != `"refreshed"` {
		t.Fatalf("the view's call ended %+v", done)
	}

	// A read-only tool the model may call too runs at once.
	e, err := call(b, protocol.AppCallRequest{Tool: "echo", Arguments: []byte(`{"text":"from the view"}`), ClientID: "echo-1"})
	if err != nil || e.NeedsConfirmation {
		t.Fatalf("echo from the view: %+v %v", e, err)
	}
	if done := b.rtcEnded(e.ID); done.Status != protocol.RTCCompleted || !strings.Contains(string(done.Output), "from the view") {
		t.Fatalf("echo ended %+v", done)
	}

	// Plan mode refuses a tool with effects, as for the model, and not a read-only one.
	var upd protocol.SessionResult
	mode := func(m string) {
		b.mustCall(protocol.MethodSessionUpdate, protocol.SessionUpdateRequest{SessionID: panel.SessionID, WorkMode: &m}, &upd)
	}
	mode(protocol.ModePlan)
	p, err := call(b, protocol.AppCallRequest{Tool: "panel_refresh", ClientID: "refresh-plan"})
	if err != nil || p.Status != protocol.RTCRejected || !strings.Contains(p.Error, "plan mode") {
		t.Fatalf("a view's call in plan mode: %+v %v", p, err)
	}
	if r, err := call(b, protocol.AppCallRequest{Tool: "echo", Arguments: []byte(`{"text":"plan"}`), ClientID: "echo-plan"}); err != nil || b.rtcEnded(r.ID).Status != protocol.RTCCompleted {
		t.Fatalf("a read-only call in plan mode: %+v %v", r, err)
	}
	mode(protocol.ModeEdit)

	// "Allow for this chat" covers the view's next calls of the tool.
	v2, err := call(b, protocol.AppCallRequest{Tool: "panel_refresh", ClientID: "refresh-2"})
	if err != nil {
		t.Fatal(err)
	}
	if err := b.retry(protocol.MethodRTCApprove, protocol.RTCApproveRequest{RTCID: v2.ID, ClientID: "approve-2",
		Approval: &protocol.ApprovalAnswer{Scope: protocol.ScopeSession}}); err != nil {
		t.Fatal(err)
	}
	b.rtcEnded(v2.ID)
	v3, err := call(b, protocol.AppCallRequest{Tool: "panel_refresh", ClientID: "refresh-3"})
	if err != nil || v3.NeedsConfirmation || v3.Decision == nil || !v3.Decision.Standing {
		t.Fatalf("a call allowed for the chat: %+v %v", v3, err)
	}
	if done := b.rtcEnded(v3.ID); done.Status != protocol.RTCCompleted {
		t.Fatalf("the allowed call ended %+v", done)
	}
}

// TestMCPViewCallEndsWithTurn: a view's call waiting for the person ends when
// the person stops the turn, like the turn's other calls.
func TestMCPViewCallEndsWithTurn(t *testing.T) {
	srv := startServer(t, mustScript(t, viewScript), func(c *config.Config) {
		c.MCPConfig = mcpConfig(t, filepath.Join(t.TempDir(), "calls"), "")
	})
	// A browser that answers nothing: the panel runs (bypass mode), and the
	// turn waits on its question.
	b := newBrowser(t, srv, "alice", "dev-a", watching())
	res := b.sendMode("", "show the panel", protocol.ModeBypass)
	panel := b.waitRTC(res.SessionID, "test__panel", protocol.RTCCompleted)
	b.waitRTC(res.SessionID, "askUser", protocol.RTCPending)
	edit := protocol.ModeEdit
	var upd protocol.SessionResult
	b.mustCall(protocol.MethodSessionUpdate, protocol.SessionUpdateRequest{SessionID: res.SessionID, WorkMode: &edit}, &upd)
	view, err := b.appCall(protocol.AppCallRequest{RTCID: panel.ID, Tool: "panel_refresh", ClientID: "r"})
	if err != nil || view.Status != protocol.RTCPending || !view.NeedsConfirmation {
		t.Fatalf("the view's call: %+v %v", view, err)
	}
	var stopped protocol.TurnResult
	b.mustCall(protocol.MethodTurnStop, protocol.IDRequest{SessionID: res.SessionID}, &stopped)
	if got := b.rtcEnded(view.ID); got.Status != protocol.RTCFailed || !strings.Contains(got.Error, "cancelled") {
		t.Fatalf("the view's call after the stop: %+v", got)
	}
}

// viewCallsAfterTheTurn is the part of TestMCPViewCalls after the view's turn
// ended (nAssistant assistant messages): each call of the view is an app turn
// of its own, the chat's active turn until the call ends, completed without a
// model step; another call waits for it, a repeated one returns the same RTC,
// a stop ends it and it is not retried.
func viewCallsAfterTheTurn(t *testing.T, b *browser, sessionID, viewTurn string, panel protocol.RTC, nAssistant int) {
	t.Helper()
	// sleep asks the person ("Allow for this chat" covers panel_refresh by now).
	late, err := b.appCall(protocol.AppCallRequest{RTCID: panel.ID, Tool: "sleep", Arguments: []byte(`{"ms": 10, "tag": "late"}`), ClientID: "late"})
	if err != nil {
		t.Fatalf("a call after the turn ended: %v", err)
	}
	var own protocol.TurnResult
	b.mustCall(protocol.MethodTurnGet, protocol.IDRequest{TurnID: late.TurnID}, &own)
	if late.TurnID == viewTurn || own.Turn.Kind != protocol.TurnKindApp || own.Turn.Status != protocol.TurnWaiting ||
		late.ToolCallID != "app:"+panel.ID+":late" || late.MessageID != panel.MessageID {
		t.Fatalf("the call after the turn: %+v in %+v", late, own.Turn)
	}
	if _, err := b.appCall(protocol.AppCallRequest{RTCID: panel.ID, Tool: "panel_refresh", ClientID: "late-2"}); codeOf(err) != protocol.CodeConflict {
		t.Fatalf("a second call while the first one's turn is active: %v", err)
	}
	if err := b.retry(protocol.MethodRTCApprove, protocol.RTCApproveRequest{RTCID: late.ID, ClientID: "approve-late"}); err != nil {
		t.Fatal(err)
	}
	if done := b.rtcEnded(late.ID); done.Status != protocol.RTCCompleted {
		t.Fatalf("the call after the turn ended: %+v", done)
	}
	if tr := b.waitTurn(late.TurnID, 30*time.Second); tr.Status != protocol.TurnCompleted || tr.Step != 0 {
		t.Fatalf("its turn: %+v", tr)
	}
	if n := len(b.assistantMessages(sessionID)); n != nAssistant {
		t.Fatalf("the model took a step for a view's call: %d assistant messages, want %d", n, nAssistant)
	}
	if again, err := b.appCall(protocol.AppCallRequest{RTCID: panel.ID, Tool: "sleep", ClientID: "late"}); err != nil || again.ID != late.ID {
		t.Fatalf("the repeated call after the turn: %+v %v", again, err)
	}

	// A stop ends the call's turn and the call; a retry is refused.
	stopped, err := b.appCall(protocol.AppCallRequest{RTCID: panel.ID, Tool: "sleep", Arguments: []byte(`{"ms": 10, "tag": "stopped"}`), ClientID: "late-3"})
	if err != nil {
		t.Fatal(err)
	}
	b.mustCall(protocol.MethodTurnStop, protocol.IDRequest{SessionID: sessionID}, nil)
	if r := b.rtcEnded(stopped.ID); r.Status != protocol.RTCFailed {
		t.Fatalf("a stopped view call: %+v", r)
	}
	if tr := b.waitTurn(stopped.TurnID, 30*time.Second); tr.Status != protocol.TurnStopped {
		t.Fatalf("its turn: %+v", tr)
	}
	err = b.retry(protocol.MethodTurnRetry, protocol.TurnRetryRequest{SessionID: sessionID, TurnID: stopped.TurnID, ClientID: "retry-app"})
	if codeOf(err) != protocol.CodeInvalidArgument {
		t.Fatalf("a retry of a view's call's turn: %v", err)
	}
}
