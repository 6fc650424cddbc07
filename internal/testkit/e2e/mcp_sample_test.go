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

// sampleScript has the model call the test server's sample tool, which asks
// the client's model (the same script: the request's own user message picks
// its turn), and then repeat the tool's result.
const sampleScript = `{"name": "mcp-sample", "turns": [
  {"match": "^write a haiku", "steps": [{"text": "green tests at dawn"}]},
  {"match": "(?i)sample", "steps": [
    {"tool_calls": [{"name": "test__sample", "arguments": {"prompt": "write a haiku"}}]},
    {"text": "after: {{last_result}}"}
  ]}
]}`

// TestMCPSampling: an MCP server's request to use the model during a call is
// shown to the person with what would be sent; once allowed (for this chat),
// the session's model answers it, the server gets the answer, the request's
// RTC keeps it with its audit record, and its tokens count to the turn. The
// next request of that server in the chat runs without asking; after a revoke
// it asks again, and a refusal is an error the model reads (the SDK fails a
// multi round-trip call whose request was refused).
func TestMCPSampling(t *testing.T) {
	srv := startServer(t, mustScript(t, sampleScript), func(c *config.Config) {
		c.MCPConfig = mcpConfig(t, filepath.Join(t.TempDir(), "calls"), "")
	})
	b := newBrowser(t, srv, "alice", "dev-a")
	var asked []protocol.RTC
	refuse := false
	b.decide = func(r protocol.RTC) (bool, any, string, bool) {
		if !tools.IsSampling(r.ToolName) {
			return false, nil, "", false // the tool's call itself: approved
		}
		asked = append(asked, r)
		if !refuse {
			// "Allow for this chat": the sim's own approval after it changes nothing.
			if err := b.retry(protocol.MethodRTCApprove, protocol.RTCApproveRequest{RTCID: r.ID, ClientID: "chat-" + r.ID,
				Approval: &protocol.ApprovalAnswer{Scope: protocol.ScopeSession}}); err != nil {
				t.Errorf("approve %s: %v", r.ID, err)
			}
		}
		return false, nil, "", refuse
	}
	turn := func(sessionID, text string) (protocol.MessageSendResult, string) {
		t.Helper()
		res := b.send(sessionID, text)
		if tr := b.waitTurn(res.TurnID, 60*time.Second); tr.Status != protocol.TurnCompleted {
			t.Fatalf("turn %s %+v", tr.Status, tr.Error)
		}
		msgs := b.assistantMessages(res.SessionID)
		return res, msgs[len(msgs)-1].Text
	}
	sampling := func(sessionID string) []protocol.RTC {
		var list protocol.RTCListResult
		b.mustCall(protocol.MethodRTCList, protocol.ListRequest{SessionID: sessionID}, &list)
		var out []protocol.RTC
		for _, r := range list.RTCs {
			if tools.IsSampling(r.ToolName) {
				out = append(out, r)
			}
		}
		return out
	}

	res, last := turn("", "sample something")
	if !strings.HasPrefix(last, "after: sampled: green tests at dawn (") {
		t.Fatalf("final %q", last)
	}
	if len(asked) != 1 {
		t.Fatalf("asked %d times", len(asked))
	}
	var q tools.SampleRequest
	if err := json.Unmarshal(asked[0].Arguments, &q); err != nil || q.Server != "test" || q.SystemPrompt != "You are a test server." ||
		len(q.Messages) != 1 || q.Messages[0].Text != "write a haiku" || q.MaxTokens != 50 || !asked[0].NeedsConfirmation {
		t.Fatalf("the request shown: %s (%v), needs confirmation %v", asked[0].Arguments, err, asked[0].NeedsConfirmation)
	}
	first := sampling(res.SessionID)
	if len(first) != 1 || first[0].Status != protocol.RTCCompleted || string(first[0].Output) != `"green tests at dawn"` ||
		first[0].Executor != protocol.RTCExecutorServer || first[0].Decision == nil || first[0].Decision.Scope != protocol.ScopeSession {
		t.Fatalf("the request's RTC: %+v", first)
	}
	var audit protocol.AuditRecord
	for _, a := range b.auditOf(res.SessionID) {
		if a.RTCID == first[0].ID {
			audit = a
		}
	}
	if audit.Decision.Outcome != protocol.DecisionAllowed || audit.Decision.By != protocol.DecidedByUser || audit.Status != protocol.RTCCompleted {
		t.Fatalf("audit %+v", audit)
	}
	var got protocol.TurnResult
	b.mustCall(protocol.MethodTurnGet, protocol.IDRequest{TurnID: res.TurnID}, &got)
	tr := got.Turn
	steps := int64(0)
	for _, m := range b.assistantMessages(res.SessionID) {
		if m.Usage != nil {
			steps += m.Usage.OutputTokens
		}
	}
	if tr.Usage.OutputTokens <= steps {
		t.Fatalf("the turn's output tokens %d leave out the model's answer to the server (its steps: %d)", tr.Usage.OutputTokens, steps)
	}

	// Allowed for this chat: the next request runs without asking.
	turn(res.SessionID, "sample again")
	if len(asked) != 1 {
		t.Fatalf("asked again despite the approval: %d", len(asked))
	}
	if l := sampling(res.SessionID); len(l) != 2 || l[1].NeedsConfirmation || l[1].Status != protocol.RTCCompleted || l[1].Decision == nil || !l[1].Decision.Standing {
		t.Fatalf("the second request: %+v", l)
	}

	// Revoked, then refused: the server is told.
	var upd protocol.Session
	b.mustCall(protocol.MethodSessionUpdate, protocol.SessionUpdateRequest{SessionID: res.SessionID, RevokeApprovals: []string{tools.SamplingTool("test")}}, &upd)
	refuse = true
	_, last = turn(res.SessionID, "sample once more")
	if len(asked) != 2 || !strings.Contains(last, "the person refused the request to use the model") {
		t.Fatalf("after the revoke: asked %d, final %q", len(asked), last)
	}
}
