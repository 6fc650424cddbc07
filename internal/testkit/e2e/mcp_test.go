package e2e

import (
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rtcagent/rtcagent/internal/config"
	"github.com/rtcagent/rtcagent/internal/protocol"
	"github.com/rtcagent/rtcagent/internal/session"
	"github.com/rtcagent/rtcagent/internal/testkit/mcptest"
)

// confirmServerCall plays the person for a call the server executes: it never
// runs it, and approves it when it needs confirmation (or rejects it when decide
// says so).
func (b *browser) confirmServerCall(r protocol.RTC) {
	if !r.NeedsConfirmation {
		return
	}
	b.mu.Lock()
	decide := b.decide
	b.mu.Unlock()
	if decide != nil {
		if _, _, _, reject := decide(r); reject {
			if err := b.retry(protocol.MethodRTCUpdateStatus, protocol.RTCUpdateStatusRequest{RTCID: r.ID, Status: protocol.RTCRejected,
				ClientID: "res-" + r.ID, Reason: "not now"}); err != nil {
				b.t.Errorf("reject %s: %v", r.ID, err)
			}
			return
		}
	}
	if err := b.retry(protocol.MethodRTCApprove, protocol.RTCApproveRequest{RTCID: r.ID, ClientID: "approve-" + r.ID}); err != nil {
		b.t.Errorf("approve %s: %v", r.ID, err)
	}
}

// mcpConfig writes a config with the test MCP server as a child process over
// stdio ("test", counting sleep calls in countFile) and, when url is set, the
// same server over Streamable HTTP ("web").
func mcpConfig(t *testing.T, countFile, url string) string {
	t.Helper()
	doc := `{"servers": {"test": {"command": ` + string(jsonOf(mcptest.Binary(t))) + `, "args": ["-count", ` + string(jsonOf(countFile)) + `]}`
	if url != "" {
		doc += `, "web": {"url": ` + string(jsonOf(url)) + `, "headers": {"X-Test": "1"}}`
	}
	doc += `}}`
	path := filepath.Join(t.TempDir(), "mcp.json")
	if err := os.WriteFile(path, []byte(doc), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func countLines(t *testing.T, file string) int {
	data, err := os.ReadFile(file)
	if os.IsNotExist(err) {
		return 0
	}
	if err != nil {
		t.Fatal(err)
	}
	return strings.Count(string(data), "\n")
}

// TestMCPTools: the tools of an MCP server (child process over stdio, and over
// Streamable HTTP) are offered to the model and executed by the server as RTCs:
// a read-only tool runs at once, one with effects waits for the browser's
// approval in edit mode, a refusal reaches the model, and the browser runs none
// of them.
func TestMCPTools(t *testing.T) {
	hs := httptest.NewServer(mcptest.Handler(mcptest.Options{}))
	t.Cleanup(hs.Close)
	countFile := filepath.Join(t.TempDir(), "calls")
	script := `{"name": "mcp", "turns": [{"steps": [
	  {"tool_calls": [{"name": "test__echo", "arguments": {"text": "over stdio"}}]},
	  {"tool_calls": [{"name": "web__echo", "arguments": {"text": "over http"}}]},
	  {"tool_calls": [{"name": "test__sleep", "arguments": {"ms": 1, "tag": "approved"}}]},
	  {"tool_calls": [{"name": "test__sleep", "arguments": {"ms": 1, "tag": "refused"}}]},
	  {"text": "done: {{last_result}}"}
	]}]}`
	srv := startServer(t, mustScript(t, script), func(c *config.Config) { c.MCPConfig = mcpConfig(t, countFile, hs.URL) })
	b := newBrowser(t, srv, "alice", "dev-a")
	b.decide = func(r protocol.RTC) (bool, any, string, bool) {
		return false, nil, "", strings.Contains(string(r.Arguments), "refused")
	}
	res := b.send("", "use the MCP tools")
	if tr := b.waitTurn(res.TurnID, 60*time.Second); tr.Status != protocol.TurnCompleted {
		t.Fatalf("turn %s %+v", tr.Status, tr.Error)
	}
	var list protocol.RTCListResult
	b.mustCall(protocol.MethodRTCList, protocol.ListRequest{SessionID: res.SessionID}, &list)
	if len(list.RTCs) != 4 {
		t.Fatalf("%d rtcs", len(list.RTCs))
	}
	want := []struct {
		status, output string
		confirm        bool
	}{
		{protocol.RTCCompleted, `"echo: over stdio"`, false},
		{protocol.RTCCompleted, `"echo: over http"`, false},
		{protocol.RTCCompleted, `"slept 1 ms"`, true},
		{protocol.RTCRejected, ``, true},
	}
	for i, r := range list.RTCs {
		w := want[i]
		if r.Executor != protocol.RTCExecutorServer || r.Status != w.status || string(r.Output) != w.output || r.NeedsConfirmation != w.confirm {
			t.Errorf("rtc %d %s: executor %q status %s output %s confirm %v error %q", i, r.ToolName, r.Executor, r.Status, r.Output, r.NeedsConfirmation, r.Error)
		}
	}
	b.mu.Lock()
	executed := len(b.executed)
	b.mu.Unlock()
	if executed != 0 {
		t.Fatalf("the browser executed %d server calls", executed)
	}
	if n := countLines(t, countFile); n != 1 {
		t.Fatalf("sleep ran %d times, want once (the refused call must not run)", n)
	}
	msgs := b.assistantMessages(res.SessionID)
	if last := msgs[len(msgs)-1].Text; last != "done: [Tool Rejected] not now" {
		t.Fatalf("final %q", last)
	}
}

// TestMCPCallInterruptedCall kills the server (SIGKILL) while an MCP call
// runs, restarts it on the same data: the call ends as interrupted with a message
// the model reads, the turn completes, and the call is not made again.
func TestMCPCallInterruptedByRestart(t *testing.T) {
	countFile := filepath.Join(t.TempDir(), "calls")
	script := `{"name": "mcp-crash", "turns": [{"steps": [
	  {"tool_calls": [{"name": "test__sleep", "arguments": {"ms": 600000, "tag": "long"}}]},
	  {"text": "after: {{last_result}}"}
	]}]}`
	p := startProc(t, script, "-mcp-config", mcpConfig(t, countFile, ""))
	b := newBrowser(t, p, "alice", "dev-a")
	res := b.send("", "sleep long")
	waitFor(t, "the MCP call to start", 60*time.Second, func() bool { return countLines(t, countFile) == 1 })
	var rtcID string
	waitFor(t, "executing", 10*time.Second, func() bool {
		b.mu.Lock()
		defer b.mu.Unlock()
		for id, r := range b.rtcs {
			if r.Status == protocol.RTCExecuting {
				rtcID = id
				return true
			}
		}
		return false
	})
	p.kill()
	p.start()
	if tr := b.waitTurn(res.TurnID, 60*time.Second); tr.Status != protocol.TurnCompleted {
		t.Fatalf("turn %s %+v", tr.Status, tr.Error)
	}
	var got protocol.RTCResult
	b.mustCall(protocol.MethodRTCGet, protocol.IDRequest{RTCID: rtcID}, &got)
	if got.RTC.Status != protocol.RTCFailed || got.RTC.Error != session.InterruptedCall {
		t.Fatalf("rtc %s %q", got.RTC.Status, got.RTC.Error)
	}
	msgs := b.assistantMessages(res.SessionID)
	if last := msgs[len(msgs)-1].Text; !strings.Contains(last, session.InterruptedCall) {
		t.Fatalf("final %q", last)
	}
	if n := countLines(t, countFile); n != 1 {
		t.Fatalf("the call ran %d times", n)
	}
}

// TestMCPIdempotentCallRerunAfterRestart: a call of a tool annotated idempotent
// that a server crash cut off runs again after the restart, and the turn gets
// its result.
func TestMCPIdempotentCallRerunAfterRestart(t *testing.T) {
	countFile := filepath.Join(t.TempDir(), "calls")
	script := `{"name": "mcp-rerun", "turns": [{"steps": [
	  {"tool_calls": [{"name": "test__idle", "arguments": {"ms": 600000, "tag": "once"}}]},
	  {"text": "after: {{last_result}}"}
	]}]}`
	p := startProc(t, script, "-mcp-config", mcpConfig(t, countFile, ""))
	b := newBrowser(t, p, "alice", "dev-a")
	res := b.send("", "idle long")
	waitFor(t, "the MCP call to start", 60*time.Second, func() bool { return countLines(t, countFile) == 1 })
	p.kill()
	p.start()
	if tr := b.waitTurn(res.TurnID, 60*time.Second); tr.Status != protocol.TurnCompleted {
		t.Fatalf("turn %s %+v", tr.Status, tr.Error)
	}
	msgs := b.assistantMessages(res.SessionID)
	if last := msgs[len(msgs)-1].Text; last != "after: idle done" {
		t.Fatalf("final %q", last)
	}
	if n := countLines(t, countFile); n != 2 {
		t.Fatalf("the call ran %d times, want 2 (once cut off, once again)", n)
	}
}

// TestMCPAllowForChat: "Allow for this chat" covers a tool of an MCP server as
// it covers a host tool: approved with scope session, the tool is stored in the
// session's approvals and its next call runs without asking (the decision says
// why); after a revoke the next call asks again.
func TestMCPAllowForChat(t *testing.T) {
	countFile := filepath.Join(t.TempDir(), "calls")
	script := `{"name": "mcp-chat", "turns": [
	  {"match": "^one", "steps": [{"tool_calls": [{"name": "test__sleep", "arguments": {"ms": 1, "tag": "one"}}]}, {"text": "one: {{last_result}}"}]},
	  {"match": "^two", "steps": [{"tool_calls": [{"name": "test__sleep", "arguments": {"ms": 2, "tag": "two"}}]}, {"text": "two: {{last_result}}"}]},
	  {"match": "^three", "steps": [{"tool_calls": [{"name": "test__sleep", "arguments": {"ms": 3, "tag": "three"}}]}, {"text": "three: {{last_result}}"}]}
	]}`
	srv := startServer(t, mustScript(t, script), func(c *config.Config) { c.MCPConfig = mcpConfig(t, countFile, "") })
	b := newBrowser(t, srv, "alice", "dev-a", noExecute)

	res := b.sendMode("", "one", protocol.ModeManual)
	r := b.rtcOfTurn(res.TurnID, protocol.RTCPending)
	if !r.NeedsConfirmation || r.Executor != protocol.RTCExecutorServer {
		t.Fatalf("an MCP call in manual mode asks: %+v", r)
	}
	for _, bad := range []protocol.ApprovalAnswer{{Scope: "forever"}, {Reason: "why"}} {
		if _, err := b.call(t.Context(), protocol.MethodRTCApprove, protocol.RTCApproveRequest{RTCID: r.ID, ClientID: "bad", Approval: &bad}); err == nil {
			t.Fatalf("approval %+v accepted", bad)
		} else if pe, ok := err.(*protocol.Error); !ok || pe.Code != protocol.CodeInvalidArgument {
			t.Fatalf("approval %+v: %v", bad, err)
		}
	}
	var upd protocol.RTCResult
	b.mustCall(protocol.MethodRTCApprove, protocol.RTCApproveRequest{RTCID: r.ID, ClientID: "a1", Approval: &protocol.ApprovalAnswer{Scope: protocol.ScopeSession}}, &upd)
	if d := upd.RTC.Decision; d == nil || d.Scope != protocol.ScopeSession || d.DeviceID != "dev-a" {
		t.Fatalf("decision %+v", upd.RTC.Decision)
	}
	if tr := b.waitTurn(res.TurnID, 60*time.Second); tr.Status != protocol.TurnCompleted {
		t.Fatalf("turn %s %+v", tr.Status, tr.Error)
	}
	sess := b.session(res.SessionID)
	if len(sess.Approvals) != 1 || sess.Approvals[0].Tool != "test__sleep" || sess.Approvals[0].RTCID != r.ID {
		t.Fatalf("approvals %+v", sess.Approvals)
	}

	// The next call of the tool runs without asking; nobody approves it here.
	res = b.sendMode(res.SessionID, "two", "")
	if tr := b.waitTurn(res.TurnID, 60*time.Second); tr.Status != protocol.TurnCompleted {
		t.Fatalf("turn %s %+v", tr.Status, tr.Error)
	}
	var list protocol.RTCListResult
	b.mustCall(protocol.MethodRTCList, protocol.ListRequest{SessionID: res.SessionID}, &list)
	r = list.RTCs[len(list.RTCs)-1]
	if r.NeedsConfirmation || r.Status != protocol.RTCCompleted || r.Decision == nil || !r.Decision.Standing || r.Decision.Scope != protocol.ScopeSession {
		t.Fatalf("a call allowed for this chat: %+v decision %+v", r, r.Decision)
	}

	// Revoked: the next call asks again.
	b.mustCall(protocol.MethodSessionUpdate, protocol.SessionUpdateRequest{SessionID: res.SessionID, RevokeApprovals: []string{"test__sleep"}}, nil)
	res = b.sendMode(res.SessionID, "three", "")
	r = b.rtcOfTurn(res.TurnID, protocol.RTCPending)
	if !r.NeedsConfirmation {
		t.Fatalf("after revoke the call asks: %+v", r)
	}
	b.mustCall(protocol.MethodRTCApprove, protocol.RTCApproveRequest{RTCID: r.ID, ClientID: "a3"}, nil)
	if tr := b.waitTurn(res.TurnID, 60*time.Second); tr.Status != protocol.TurnCompleted {
		t.Fatalf("turn %s %+v", tr.Status, tr.Error)
	}
	if sess := b.session(res.SessionID); len(sess.Approvals) != 0 {
		t.Fatalf("an approval once is not stored: %+v", sess.Approvals)
	}
	msgs := b.assistantMessages(res.SessionID)
	if last := msgs[len(msgs)-1].Text; last != "three: slept 3 ms" {
		t.Fatalf("final %q", last)
	}
	if n := countLines(t, countFile); n != 3 {
		t.Fatalf("sleep ran %d times", n)
	}
}
