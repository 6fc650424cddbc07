package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/rtcagent/rtcagent/internal/protocol"
	"github.com/rtcagent/rtcagent/internal/session"
	"github.com/rtcagent/rtcagent/internal/testkit/mcptest"
)

// taskConfig writes a config with the task server at url ("tasks").
func taskConfig(t *testing.T, url string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "mcp.json")
	doc := `{"servers": {"tasks": {"url": ` + string(jsonOf(url+"/mcp")) + `}}}`
	if err := os.WriteFile(path, []byte(doc), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// taskOfTurn waits for the turn's server call to become an MCP task and
// returns the call.
func (b *browser) taskOfTurn(turnID string) protocol.RTC {
	var found protocol.RTC
	waitFor(b.t, "the call's task", 60*time.Second, func() bool {
		b.mu.Lock()
		defer b.mu.Unlock()
		for _, r := range b.rtcs {
			if r.TurnID == turnID && r.TaskID != "" && r.Status == protocol.RTCExecuting {
				found = r
				return true
			}
		}
		return false
	})
	return found
}

// countTask starts the server with MCP config cfg and a script whose turn
// calls tasks__count (steps, ms apart) and then says what it returned; a
// browser sends the message and waits for the call's task.
func countTask(t *testing.T, cfg string, steps, ms int) (*procServer, *browser, protocol.MessageSendResult, protocol.RTC) {
	t.Helper()
	script := fmt.Sprintf(`{"name": "mcp-task", "turns": [{"steps": [
	  {"tool_calls": [{"name": "tasks__count", "arguments": {"steps": %d, "ms": %d}}]},
	  {"text": "after: {{last_result}}"}
	]}]}`, steps, ms)
	p := startProc(t, script, "-mcp-config", cfg)
	b := newBrowser(t, p, "alice", "dev-a")
	res := b.send("", "count")
	return p, b, res, b.taskOfTurn(res.TurnID)
}

// TestMCPTaskSurvivesRestart: a call of a tool that runs as an MCP task
// keeps its task's id with the RTC; the server is killed (SIGKILL) while
// the task runs and restarted on the same data, and the new process waits
// for the same task: the turn gets the task's result, and the tool ran once.
func TestMCPTaskSurvivesRestart(t *testing.T) {
	url := mcptest.TaskServerHTTP(t)
	p, b, res, r := countTask(t, taskConfig(t, url), 12, 250)
	p.kill()
	if got := mcptest.ServerTasks(t, url); got[r.TaskID] != "working" {
		t.Fatalf("the task is not running at the restart: %v", got)
	}
	p.start()
	if tr := b.waitTurn(res.TurnID, 60*time.Second); tr.Status != protocol.TurnCompleted {
		t.Fatalf("turn %s %+v", tr.Status, tr.Error)
	}
	msgs := b.assistantMessages(res.SessionID)
	if last := msgs[len(msgs)-1].Text; last != "after: counted to 12" {
		t.Fatalf("final %q", last)
	}
	if got := mcptest.ServerTasks(t, url); len(got) != 1 || got[r.TaskID] != "completed" {
		t.Fatalf("the tool ran again, or its task did not end: %v", got)
	}
}

// TestMCPTaskCancelledByStop: a stop of the turn while its call's task runs
// cancels the task at its server.
func TestMCPTaskCancelledByStop(t *testing.T) {
	url := mcptest.TaskServerHTTP(t)
	_, b, res, r := countTask(t, taskConfig(t, url), 400, 100)
	b.mustCall(protocol.MethodTurnStop, protocol.IDRequest{SessionID: res.SessionID}, nil)
	waitFor(t, "the task cancelled at its server", 30*time.Second, func() bool {
		return mcptest.ServerTasks(t, url)[r.TaskID] == "cancelled"
	})
}

// TestMCPTaskForgottenByRestart: over stdio the task server is a new
// process after the restart and no longer knows the task; the call is then
// one a restart cut off (its tool is not read-only or idempotent): it ends
// as interrupted, and the turn goes on.
func TestMCPTaskForgottenByRestart(t *testing.T) {
	path := filepath.Join(t.TempDir(), "mcp.json")
	doc := `{"servers": {"tasks": {"command": "node", "args": [` + string(jsonOf(mcptest.TaskServer(t))) + `, "stdio"]}}}`
	if err := os.WriteFile(path, []byte(doc), 0o600); err != nil {
		t.Fatal(err)
	}
	p, b, res, r := countTask(t, path, 400, 100)
	p.kill()
	p.start()
	if tr := b.waitTurn(res.TurnID, 60*time.Second); tr.Status != protocol.TurnCompleted {
		t.Fatalf("turn %s %+v", tr.Status, tr.Error)
	}
	var got protocol.RTCResult
	b.mustCall(protocol.MethodRTCGet, protocol.IDRequest{RTCID: r.ID}, &got)
	if got.RTC.Status != protocol.RTCFailed || got.RTC.Error != session.InterruptedCall || got.RTC.TaskID != r.TaskID {
		t.Fatalf("rtc %s %q task %q", got.RTC.Status, got.RTC.Error, got.RTC.TaskID)
	}
}
