package e2e

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rtcagent/rtcagent/internal/config"
	"github.com/rtcagent/rtcagent/internal/protocol"
	"github.com/rtcagent/rtcagent/internal/tools"
)

// elicitScript has the model call the test server's ask tool, which elicits an
// answer from the person, and then repeat the tool's result.
const elicitScript = `{"name": "mcp-elicit", "turns": [{"steps": [
  {"tool_calls": [{"name": "test__ask", "arguments": {"question": "Which colour?"}}]},
  {"text": "after: {{last_result}}"}
]}]}`

// answerAsk plays the person for the questions of MCP servers (elicitation
// RTCs): the server call is approved, and answer decides each question.
func answerAsk(t *testing.T, b *browser, answer func(r protocol.RTC) (bool, any, string, bool)) {
	b.decide = func(r protocol.RTC) (bool, any, string, bool) {
		if r.Executor == protocol.RTCExecutorServer {
			return false, nil, "", false
		}
		if r.ToolName != tools.Elicitation || !strings.HasPrefix(r.ToolCallID, "elicit:") {
			t.Errorf("unexpected call %s %s", r.ToolName, r.ToolCallID)
			return false, nil, "not expected", false
		}
		return answer(r)
	}
}

// elicitRTCs returns the session's server call and its question.
func elicitRTCs(t *testing.T, b *browser, sessionID string) (call, ask protocol.RTC) {
	t.Helper()
	var list protocol.RTCListResult
	b.mustCall(protocol.MethodRTCList, protocol.ListRequest{SessionID: sessionID}, &list)
	if len(list.RTCs) != 2 {
		t.Fatalf("%d rtcs, want the call and its question", len(list.RTCs))
	}
	call, ask = list.RTCs[0], list.RTCs[1]
	if call.ToolName != "test__ask" || ask.ToolName != tools.Elicitation || ask.ToolCallID != "elicit:"+call.ID+":1" ||
		ask.Step != call.Step || ask.TurnID != call.TurnID || ask.Seq <= call.Seq {
		t.Fatalf("call %+v\nquestion %+v", call, ask)
	}
	return call, ask
}

// TestMCPElicitationAnswered: the test server's ask tool elicits a free-text
// answer during the call; it reaches the browser as a one-field form of that
// server, the person's answer goes back to the server, and the tool's result
// (which the model reads) holds it. The question is not in the transcript.
func TestMCPElicitationAnswered(t *testing.T) {
	srv := startServer(t, mustScript(t, elicitScript), func(c *config.Config) {
		c.MCPConfig = mcpConfig(t, filepath.Join(t.TempDir(), "calls"), "")
	})
	b := newBrowser(t, srv, "alice", "dev-a")
	var args json.RawMessage
	answerAsk(t, b, func(r protocol.RTC) (bool, any, string, bool) {
		args = r.Arguments
		return true, map[string]any{"action": "accept", "content": map[string]any{"answer": "deep blue"}}, "", false
	})
	res := b.send("", "ask me")
	if tr := b.waitTurn(res.TurnID, 60*time.Second); tr.Status != protocol.TurnCompleted {
		t.Fatalf("turn %s %+v", tr.Status, tr.Error)
	}
	var q tools.ElicitArgs
	if err := json.Unmarshal(args, &q); err != nil || q.Server != "test" || q.Mode != tools.ElicitForm || q.Message != "Which colour?" ||
		len(q.Fields) != 1 || q.Fields[0].Name != "answer" || q.Fields[0].Kind != tools.FieldText || !q.Fields[0].Required {
		t.Fatalf("question arguments %s (%v)", args, err)
	}
	call, ask := elicitRTCs(t, b, res.SessionID)
	if call.Status != protocol.RTCCompleted || string(call.Output) != `"accept {\"answer\":\"deep blue\"}"` || ask.Status != protocol.RTCCompleted {
		t.Fatalf("call %s %s %q; question %s", call.Status, call.Output, call.Error, ask.Status)
	}
	msgs := b.assistantMessages(res.SessionID)
	if last := msgs[len(msgs)-1].Text; last != `after: accept {"answer":"deep blue"}` {
		t.Fatalf("final %q", last)
	}
}

// TestMCPElicitationDeclined: the person dismisses the question; the server is
// told the elicitation was declined and the tool's result says so.
func TestMCPElicitationDeclined(t *testing.T) {
	srv := startServer(t, mustScript(t, elicitScript), func(c *config.Config) {
		c.MCPConfig = mcpConfig(t, filepath.Join(t.TempDir(), "calls"), "")
	})
	b := newBrowser(t, srv, "alice", "dev-a")
	answerAsk(t, b, func(r protocol.RTC) (bool, any, string, bool) { return false, nil, "", true })
	res := b.send("", "ask me")
	if tr := b.waitTurn(res.TurnID, 60*time.Second); tr.Status != protocol.TurnCompleted {
		t.Fatalf("turn %s %+v", tr.Status, tr.Error)
	}
	call, ask := elicitRTCs(t, b, res.SessionID)
	if call.Status != protocol.RTCCompleted || !strings.HasPrefix(string(call.Output), `"decline`) || ask.Status != protocol.RTCRejected {
		t.Fatalf("call %s %s %q; question %s", call.Status, call.Output, call.Error, ask.Status)
	}
	msgs := b.assistantMessages(res.SessionID)
	if last := msgs[len(msgs)-1].Text; !strings.HasPrefix(last, "after: decline") {
		t.Fatalf("final %q", last)
	}
}

// TestMCPElicitationStopped: the turn is stopped while the question is open; the
// call and its question end, no RTC of the session stays open, and an answer
// sent afterwards changes nothing.
func TestMCPElicitationStopped(t *testing.T) {
	srv := startServer(t, mustScript(t, elicitScript), func(c *config.Config) {
		c.MCPConfig = mcpConfig(t, filepath.Join(t.TempDir(), "calls"), "")
	})
	b := newBrowser(t, srv, "alice", "dev-a")
	shown := make(chan string, 1)
	release := make(chan struct{})
	answerAsk(t, b, func(r protocol.RTC) (bool, any, string, bool) {
		shown <- r.ID
		<-release
		return true, map[string]any{"action": "accept", "content": map[string]any{"answer": "too late"}}, "", false
	})
	res := b.send("", "ask me")
	select {
	case <-shown:
	case <-time.After(60 * time.Second):
		t.Fatal("the question did not reach the browser")
	}
	var stopped protocol.Turn
	b.mustCall(protocol.MethodTurnStop, protocol.IDRequest{SessionID: res.SessionID}, &stopped)
	if tr := b.waitTurn(res.TurnID, 60*time.Second); tr.Status != protocol.TurnStopped {
		t.Fatalf("turn %s", tr.Status)
	}
	close(release)
	waitFor(t, "every RTC of the session to end", 30*time.Second, func() bool {
		var list protocol.RTCListResult
		b.mustCall(protocol.MethodRTCList, protocol.ListRequest{SessionID: res.SessionID}, &list)
		for _, r := range list.RTCs {
			if !protocol.RTCTerminal(r.Status) {
				return false
			}
		}
		return len(list.RTCs) == 2
	})
	var pending protocol.RTCListResult
	b.mustCall(protocol.MethodRTCPending, struct{}{}, &pending)
	if len(pending.RTCs) != 0 {
		t.Fatalf("%d RTCs still pending", len(pending.RTCs))
	}
	call, ask := elicitRTCs(t, b, res.SessionID)
	if call.Status == protocol.RTCCompleted || ask.Status == protocol.RTCCompleted {
		t.Fatalf("call %s %s; question %s %s", call.Status, call.Output, ask.Status, ask.Output)
	}
}

// TestMCPElicitationUnshowable: a question the page cannot show (here more
// fields than a form shows) is never delivered: it is recorded failed under
// the call with why, the server is told it was declined, and the turn goes on.
func TestMCPElicitationUnshowable(t *testing.T) {
	script := strings.Replace(elicitScript, `"question": "Which colour?"`, `"question": "Everything?", "form": "wide"`, 1)
	srv := startServer(t, mustScript(t, script), func(c *config.Config) {
		c.MCPConfig = mcpConfig(t, filepath.Join(t.TempDir(), "calls"), "")
	})
	b := newBrowser(t, srv, "alice", "dev-a")
	answerAsk(t, b, func(r protocol.RTC) (bool, any, string, bool) {
		t.Errorf("a question that cannot be shown was delivered: %s", r.Arguments)
		return false, nil, "", true
	})
	res := b.send("", "ask me")
	if tr := b.waitTurn(res.TurnID, 60*time.Second); tr.Status != protocol.TurnCompleted {
		t.Fatalf("turn %s %+v", tr.Status, tr.Error)
	}
	call, ask := elicitRTCs(t, b, res.SessionID)
	if ask.Status != protocol.RTCFailed || !strings.Contains(ask.Error, "cannot be shown") || !strings.Contains(ask.Error, "at most 64") {
		t.Fatalf("question %s %q", ask.Status, ask.Error)
	}
	if call.Status != protocol.RTCCompleted || !strings.HasPrefix(string(call.Output), `"decline`) {
		t.Fatalf("call %s %s %q", call.Status, call.Output, call.Error)
	}
}
