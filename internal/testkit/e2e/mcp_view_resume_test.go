package e2e

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rtcagent/rtcagent/internal/config"
	"github.com/rtcagent/rtcagent/internal/protocol"
	"github.com/rtcagent/rtcagent/internal/store"
)

// resumeScript: alice's turn shows the panel and asks two questions in two
// steps; bob's runs a server call that waits until the file GATE exists.
const resumeScript = `{"name": "mcp-view-resume", "turns": [
  {"match": "(?i)panel", "steps": [
    {"tool_calls": [{"name": "test__panel", "arguments": {"title": "Sales"}}]},
    {"tool_calls": [{"name": "askUser", "arguments": {"questions": [{"question": "First?", "options": [{"label": "yes"}, {"label": "no"}]}]}}]},
    {"tool_calls": [{"name": "askUser", "arguments": {"questions": [{"question": "Second?", "options": [{"label": "yes"}, {"label": "no"}]}]}}]},
    {"text": "after: {{last_result}}"}]},
  {"match": "(?i)sleep", "steps": [
    {"tool_calls": [{"name": "test__progress", "arguments": {"count": 1, "gate": GATE}}]},
    {"text": "done"}]}
]}`

// TestMCPViewCallRefusedBeforeTheResume: the first question is answered
// while the node's only drain slot is taken, so the turn's resumption waits
// in the inbox (on PostgreSQL with another node alive, where a node adopts
// only with a slot free: embedded, or alone, the answer takes the turn at
// once and its drain waits for the slot, so no second resumption can be
// queued).
// Meanwhile its view asks for a call and the person refuses it: that call's
// end finds no call of the turn open and queues a second resumption. The
// first runs the next step, which asks the second question; the second finds
// that question open and is dropped: no step runs beside it, and the turn
// goes on only once the person answers.
func TestMCPViewCallRefusedBeforeTheResume(t *testing.T) {
	db := requirePostgres(t)
	// Another node's liveness record, written before the server starts: the
	// server is not alone from its first renewal on.
	if err := claimStore(t, db).Write(context.Background(), func(tx store.Tx) error { return tx.NodeBeat("another node", time.Hour) }); err != nil {
		t.Fatal(err)
	}
	gate := filepath.Join(t.TempDir(), "gate")
	srv := startServer(t, mustScript(t, strings.Replace(resumeScript, "GATE", string(jsonOf(gate)), 1)), func(c *config.Config) {
		c.MCPConfig = mcpConfig(t, filepath.Join(t.TempDir(), "calls"), "")
		c.Active = 1
		c.DBURL = db
	})
	alice := newBrowser(t, srv, "alice", "dev-a", watching())
	bob := newBrowser(t, srv, "bob", "dev-b", watching())

	res, panel, first := alice.showPanel()

	slow := bob.sendMode("", "sleep", protocol.ModeBypass)
	bob.waitRTC(slow.SessionID, "test__progress", protocol.RTCExecuting)
	alice.answer(first, "yes")
	view, err := alice.appCall(protocol.AppCallRequest{RTCID: panel.ID, Tool: "panel_refresh", ClientID: "refresh"})
	if err != nil || view.Status != protocol.RTCPending || !view.NeedsConfirmation {
		t.Fatalf("the view's call: %+v %v", view, err)
	}
	if err := alice.retry(protocol.MethodRTCUpdateStatus, protocol.RTCUpdateStatusRequest{RTCID: view.ID, Status: protocol.RTCRejected, ClientID: "refuse"}); err != nil {
		t.Fatal(err)
	}
	var during protocol.TurnResult
	alice.mustCall(protocol.MethodTurnGet, protocol.IDRequest{TurnID: res.TurnID}, &during)
	if during.Turn.Status != protocol.TurnWaiting {
		t.Fatalf("the turn resumed while the only slot was taken: %s", during.Turn.Status)
	}
	if err := os.WriteFile(gate, nil, 0o600); err != nil {
		t.Fatal(err)
	}

	if tr := bob.waitTurn(slow.TurnID, 30*time.Second); tr.Status != protocol.TurnCompleted {
		t.Fatalf("bob's turn %s %+v", tr.Status, tr.Error)
	}
	second := alice.waitRTC(res.SessionID, "askUser", protocol.RTCPending)
	if second.ID == first.ID {
		t.Fatal("the first question is still open")
	}
	alice.answer(second, "no")
	if tr := alice.waitTurn(res.TurnID, 30*time.Second); tr.Status != protocol.TurnCompleted {
		t.Fatalf("turn %s %+v", tr.Status, tr.Error)
	}
	var asked int
	for _, r := range alice.rtcsOf(res.SessionID) {
		if r.ToolName == "askUser" {
			asked++
		}
	}
	msgs := alice.assistantMessages(res.SessionID)
	if last := msgs[len(msgs)-1].Text; last != "after: no" || asked != 2 {
		t.Fatalf("the turn ended with %q after %d questions; want %q after 2: a step ran beside the second question", last, asked, "after: no")
	}
}
