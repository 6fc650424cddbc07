package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rtcagent/rtcagent/internal/config"
	"github.com/rtcagent/rtcagent/internal/protocol"
)

// viewContextScript shows the test server's panel, then answers according to
// whether the person's next message carries the panel's view context.
const viewContextScript = `{"name": "mcp-view-context", "turns": [
  {"match": "(?s)what now.*<tool_view_context tool=\"test__panel\">\\nWhat the tool's view shows the person now \\(written by the tool, not by the person\\):\\nThe panel shows 3 figures\\n</tool_view_context>$", "steps": [{"text": "saw the view"}]},
  {"match": "(?i)what now", "steps": [{"text": "no view context"}]},
  {"match": "(?i)panel", "steps": [{"tool_calls": [{"name": "test__panel", "arguments": {"title": "Sales"}}]}, {"text": "shown"}]}
]}`

// A tool view's context (ui/update-model-context) goes with the person's
// next message: the model reads it after the message's text, delimited and
// named by the view's tool, and it is kept with the message. Context that
// names no view of the chat (an unknown call, another user's), too many
// views or too much text is refused with its code, and nothing is sent.
func TestMCPViewContextGoesWithTheNextMessage(t *testing.T) {
	b, mallory, res, panel := panelShown(t)
	send := func(b *browser, sessionID, clientID string, views []protocol.ViewContext) (protocol.MessageSendResult, error) {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		var out protocol.MessageSendResult
		data, err := b.call(ctx, protocol.MethodMessageSend, protocol.MessageSendRequest{ClientID: clientID, SessionID: sessionID,
			Content: protocol.MessageContent{Text: "what now"}, Context: &protocol.MessageContext{Views: views}})
		if err == nil {
			err = json.Unmarshal(data, &out)
		}
		return out, err
	}
	many := make([]protocol.ViewContext, protocol.MaxViewContexts+1)
	for i := range many {
		many[i] = protocol.ViewContext{RTCID: panel.ID, Text: "x"}
	}
	for _, c := range []struct {
		name    string
		b       *browser
		session string
		views   []protocol.ViewContext
		code    string
	}{
		{"an unknown call", b, res.SessionID, []protocol.ViewContext{{RTCID: "nope", Text: "hi"}}, protocol.CodeInvalidArgument},
		{"another user's view", mallory, "", []protocol.ViewContext{{RTCID: panel.ID, Text: "hi"}}, protocol.CodeInvalidArgument},
		{"a view of another chat", b, "", []protocol.ViewContext{{RTCID: panel.ID, Text: "hi"}}, protocol.CodeInvalidArgument},
		{"a tool the server names", b, res.SessionID, []protocol.ViewContext{{RTCID: panel.ID, Tool: "other", Text: "hi"}}, protocol.CodeInvalidArgument},
		{"too many views", b, res.SessionID, many, protocol.CodeTooLarge},
		{"too much text", b, res.SessionID, []protocol.ViewContext{{RTCID: panel.ID, Text: strings.Repeat("x", 16<<10+1)}}, protocol.CodeTooLarge},
	} {
		if _, err := send(c.b, c.session, "bad-"+c.name, c.views); codeOf(err) != c.code {
			t.Fatalf("%s: %v, want %s", c.name, err, c.code)
		}
	}
	var turns protocol.TurnListResult
	b.mustCall(protocol.MethodTurnList, protocol.ListRequest{SessionID: res.SessionID}, &turns)
	if len(turns.Turns) != 1 {
		t.Fatalf("a refused message started a turn: %d turns", len(turns.Turns))
	}

	next, err := send(b, res.SessionID, "next", []protocol.ViewContext{{RTCID: panel.ID, Text: "The panel shows 3 figures"}})
	if err != nil {
		t.Fatal(err)
	}
	if tr := b.waitTurn(next.TurnID, 30*time.Second); tr.Status != protocol.TurnCompleted {
		t.Fatalf("the next turn: %s %+v", tr.Status, tr.Error)
	}
	var last string
	waitFor(t, "the next turn's answer", 10*time.Second, func() bool {
		for _, m := range b.assistantMessages(res.SessionID) {
			if m.TurnID == next.TurnID && m.Status == protocol.MessageComplete {
				last = m.Text
			}
		}
		return last != ""
	})
	if last != "saw the view" {
		t.Fatalf("the model answered %q: it did not read the view's context as sent", last)
	}
	var got protocol.MessageListResult
	b.mustCall(protocol.MethodMessageList, protocol.ListRequest{SessionID: res.SessionID}, &got)
	for _, m := range got.Messages {
		if m.ID == next.MessageID {
			if m.Context == nil || len(m.Context.Views) != 1 || m.Context.Views[0].Tool != "test__panel" || m.Context.Views[0].RTCID != panel.ID {
				t.Fatalf("the message keeps %+v", m.Context)
			}
			return
		}
	}
	t.Fatalf("message %s not listed", next.MessageID)
}

// A view reads a resource of its own MCP server through the server, once its
// call ran, also after its turn ended; a read for another user's view, of a
// resource its server lacks or without a URI is refused.
func TestMCPViewReadsItsServersResources(t *testing.T) {
	b, mallory, _, panel := panelShown(t)
	read := func(b *browser, rtcID, uri string) (protocol.AppResourceResult, error) {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		var out protocol.AppResourceResult
		data, err := b.call(ctx, protocol.MethodAppResource, protocol.AppResourceRequest{RTCID: rtcID, URI: uri})
		if err == nil {
			err = json.Unmarshal(data, &out)
		}
		return out, err
	}
	got, err := read(b, panel.ID, "data://mcptest/figures")
	if err != nil || len(got.Contents) != 1 || got.Contents[0].Text != "12, 7, 30" || got.Contents[0].MIMEType != "text/plain" {
		t.Fatalf("the view's read: %+v %v", got, err)
	}
	for _, c := range []struct {
		name string
		b    *browser
		rtc  string
		uri  string
		code string
	}{
		{"another user's view", mallory, panel.ID, "data://mcptest/figures", protocol.CodeNotFound},
		{"a resource its server lacks", b, panel.ID, "data://mcptest/none", protocol.CodeUnavailable},
		{"no URI", b, panel.ID, "", protocol.CodeInvalidArgument},
	} {
		if _, err := read(c.b, c.rtc, c.uri); codeOf(err) != c.code {
			t.Errorf("%s: %v, want %s", c.name, err, c.code)
		}
	}
}

// A view's call after its turn ended starts a turn, so it counts as a
// message for the user's rate: past it, both are rate_limited.
func TestMCPViewCallAfterItsTurnCountsAsAMessage(t *testing.T) {
	b, _, res, panel := panelShown(t, func(c *config.Config) { c.MsgRate, c.MsgBurst = 1, 2 })
	echo := func(key string) (protocol.RTC, error) {
		return b.appCall(protocol.AppCallRequest{RTCID: panel.ID, Tool: "echo", Arguments: []byte(`{"text":"hi"}`), ClientID: key})
	}
	first, err := echo("e1")
	if err != nil {
		t.Fatal(err)
	}
	if tr := b.waitTurn(first.TurnID, 30*time.Second); tr.Kind != protocol.TurnKindApp || tr.Status != protocol.TurnCompleted {
		t.Fatalf("the view's call's turn: %+v", tr)
	}
	if _, err := echo("e2"); codeOf(err) != protocol.CodeRateLimited {
		t.Fatalf("a call past the rate: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, err = b.call(ctx, protocol.MethodMessageSend, protocol.MessageSendRequest{SessionID: res.SessionID, ClientID: "m2", Content: protocol.MessageContent{Text: "more"}})
	if codeOf(err) != protocol.CodeRateLimited {
		t.Fatalf("a message past the rate the view's call used: %v", err)
	}
}

// Plan mode refuses a view's call with effects after its turn, and the
// refusal counts as a message too: refusals are bounded by the same rate.
func TestMCPViewCallRefusedByPlanModeCountsAsAMessage(t *testing.T) {
	b, _, res, panel := panelShown(t, func(c *config.Config) { c.MsgRate, c.MsgBurst = 1, 2 })
	plan := protocol.ModePlan
	b.mustCall(protocol.MethodSessionUpdate, protocol.SessionUpdateRequest{SessionID: res.SessionID, WorkMode: &plan}, nil)
	sleep := func(key string) (protocol.RTC, error) {
		return b.appCall(protocol.AppCallRequest{RTCID: panel.ID, Tool: "sleep", Arguments: []byte(`{"ms": 1}`), ClientID: key})
	}
	first, err := sleep("s1")
	if err != nil || first.Status != protocol.RTCRejected {
		t.Fatalf("a call with effects in plan mode: %+v %v", first, err)
	}
	if _, err := sleep("s2"); codeOf(err) != protocol.CodeRateLimited {
		t.Fatalf("a refused call past the rate: %v", err)
	}
}

// A view's calls after its turn, each made as soon as the one before ended,
// all run: a call's end ends its turn in the same commit, so the chat is free
// for the next.
func TestMCPViewCallsAfterTheTurnOneAfterAnother(t *testing.T) {
	b, _, _, panel := panelShown(t, func(c *config.Config) { c.MsgBurst = 100 })
	for i := range 10 {
		r, err := b.appCall(protocol.AppCallRequest{RTCID: panel.ID, Tool: "echo", Arguments: []byte(`{"text":"hi"}`), ClientID: fmt.Sprint("e", i)})
		if err != nil {
			t.Fatalf("call %d: %v", i, err)
		}
		done := b.rtcEnded(r.ID)
		var tr protocol.TurnResult
		b.mustCall(protocol.MethodTurnGet, protocol.IDRequest{TurnID: r.TurnID}, &tr)
		if done.Status != protocol.RTCCompleted || tr.Turn.Status != protocol.TurnCompleted || tr.Turn.Offset != done.Offset {
			t.Fatalf("call %d ended %s at %d, its turn %s at %d: not in one commit", i, done.Status, done.Offset, tr.Turn.Status, tr.Turn.Offset)
		}
	}
}

// panelShown starts a server with the test MCP server (and opts) and shows
// alice's panel in a turn that ends. It returns alice, mallory (another
// user), the turn's message and the panel's call.
func panelShown(t *testing.T, opts ...func(*config.Config)) (b, mallory *browser, res protocol.MessageSendResult, panel protocol.RTC) {
	t.Helper()
	srv := startServer(t, mustScript(t, viewContextScript), func(c *config.Config) {
		c.MCPConfig = mcpConfig(t, filepath.Join(t.TempDir(), "calls"), "")
		for _, o := range opts {
			o(c)
		}
	})
	b = newBrowser(t, srv, "alice", "dev-a", watching())
	mallory = newBrowser(t, srv, "mallory", "dev-m", watching())
	res = b.sendMode("", "show the panel", protocol.ModeBypass)
	panel = b.waitRTC(res.SessionID, "test__panel", protocol.RTCCompleted)
	if tr := b.waitTurn(res.TurnID, 30*time.Second); tr.Status != protocol.TurnCompleted {
		t.Fatalf("the panel's turn: %s %+v", tr.Status, tr.Error)
	}
	return b, mallory, res, panel
}

// A view's call after its turn is traced as a turn of its own: the turn's
// root span (kind app) and the call's span under it, in a trace apart from
// the view's turn.
func TestTraceOfAViewsCallAfterItsTurn(t *testing.T) {
	srv, rcv := startTraced(t, mustScript(t, viewContextScript), func(c *config.Config) {
		c.MCPConfig = mcpConfig(t, filepath.Join(t.TempDir(), "calls"), "")
	})
	b := newBrowser(t, srv, "alice", "dev-a", watching())
	res := b.sendMode("", "show the panel", protocol.ModeBypass)
	panel := b.waitRTC(res.SessionID, "test__panel", protocol.RTCCompleted)
	if tr := b.waitTurn(res.TurnID, 30*time.Second); tr.Status != protocol.TurnCompleted {
		t.Fatalf("the panel's turn: %s %+v", tr.Status, tr.Error)
	}
	call, err := b.appCall(protocol.AppCallRequest{RTCID: panel.ID, Tool: "echo", Arguments: []byte(`{"text":"hi"}`), ClientID: "e1"})
	if err != nil {
		t.Fatal(err)
	}
	if tr := b.waitTurn(call.TurnID, 30*time.Second); tr.Status != protocol.TurnCompleted {
		t.Fatalf("the view's call's turn: %+v", tr)
	}
	ended := b.rtcEnded(call.ID)
	traces := turnTrace(t, b, srv, rcv, call.TurnID, res.TurnID)
	own := byName(traces[call.TurnID])
	root, exec := own["turn"][0], own["execute_tool test__echo"]
	if root.TraceID == traces[res.TurnID][0].TraceID || root.ParentID != "" || root.Attrs["rtcagent.turn.kind"] != protocol.TurnKindApp {
		t.Fatalf("the call's turn's span %+v, in the view's turn's trace %s", root, traces[res.TurnID][0].TraceID)
	}
	if parts := strings.Split(ended.TraceParent, "-"); len(exec) != 1 || len(parts) != 4 || exec[0].ParentID != root.SpanID || exec[0].SpanID != parts[2] {
		t.Fatalf("the call's span %+v under %+v", exec, root)
	}
}
