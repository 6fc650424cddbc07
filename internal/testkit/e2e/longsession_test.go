package e2e

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rtcagent/rtcagent/internal/config"
	"github.com/rtcagent/rtcagent/internal/llm"
	"github.com/rtcagent/rtcagent/internal/protocol"
)

// Compaction through the OpenAI and Anthropic wire formats: summaries are
// requested and read back through the real SDKs, and the answer still lists
// every fact.
func TestCompactionProviders(t *testing.T) {
	const n1, n2 = 30, 20
	for _, pc := range providerCases {
		t.Run(pc.name, func(t *testing.T) {
			fake, provider := pc.serve(t, factsScript(t, n1, n2))
			s := startServer(t, nil, compactOpts(2000, 500), provider)
			b := newBrowser(t, s, "alice", "dev-a", factsBrowser)
			first := b.send("", "collect the facts")
			if tr := b.waitTurn(first.TurnID, 5*time.Minute); tr.Status != protocol.TurnCompleted {
				t.Fatalf("first turn %s %+v", tr.Status, tr.Error)
			}
			second := b.send(first.SessionID, "more facts")
			if tr := b.waitTurn(second.TurnID, 5*time.Minute); tr.Status != protocol.TurnCompleted {
				t.Fatalf("second turn %s %+v", tr.Status, tr.Error)
			}
			summaries := 0
			var answer string
			for _, m := range listMessages(b, first.SessionID) {
				if m.Role == protocol.RoleSummary {
					summaries++
				}
				if m.Role == protocol.RoleAssistant && len(m.ToolCalls) == 0 {
					answer = m.Text
				}
			}
			if summaries < 2 || answer != wantFacts(0, n1+n2) {
				t.Fatalf("%d summaries; answer %q", summaries, answer)
			}
			reqs := fake.Requests()
			if last := string(reqs[len(reqs)-1]); !strings.Contains(last, llm.SummaryOpen) || strings.Contains(last, factOf(0)+"\\nfiller") {
				t.Fatalf("last request does not start from a summary: %.400s", last)
			}
		})
	}
}

// v1.session.compact queues a compact turn behind the running one; it
// summarises everything before it with the instruction, and the next message's
// model request starts from that summary.
func TestSessionCompactMethod(t *testing.T) {
	model := mustScript(t, `{"name": "c", "turns": [
	  {"match": "tool", "steps": [{"tool_calls": [{"name": "ls", "arguments": {}}]}, {"text": "listed"}]},
	  {"steps": [{"text": "echo: {{user}}"}]}]}`)
	s := startServer(t, model)
	b := newBrowser(t, s, "alice", "dev-a", noExecute)
	first := b.send("", "tool please")
	r := b.pendingRTC()
	var comp protocol.TurnStartResult
	b.mustCall(protocol.MethodSessionCompact, protocol.SessionCompactRequest{SessionID: first.SessionID, Instruction: "keep the file names"}, &comp)
	waitFor(t, "the compact turn to arrive", 10*time.Second, func() bool { _, ok := b.turn(comp.TurnID); return ok })
	if tr, _ := b.turn(comp.TurnID); tr.Kind != protocol.TurnKindCompact || tr.Status != protocol.TurnQueued {
		t.Fatalf("compact turn while another waits: %+v", tr)
	}
	b.mustCall(protocol.MethodRTCSubmitResult, protocol.RTCSubmitResultRequest{RTCID: r.ID, ClientID: "c", OK: true, Output: jsonOf("/notes.txt")}, nil)
	if tr := b.waitTurn(comp.TurnID, 10*time.Second); tr.Status != protocol.TurnCompleted || tr.Usage.InputTokens == 0 {
		t.Fatalf("compact turn %s %+v", tr.Status, tr.Usage)
	}
	var summary protocol.Message
	for _, m := range listMessages(b, first.SessionID) {
		if m.Role == protocol.RoleSummary {
			summary = m
		}
	}
	if summary.TurnID != comp.TurnID || summary.Status != protocol.MessageComplete || !strings.Contains(summary.Text, "user: tool please") {
		t.Fatalf("summary %+v", summary)
	}
	all := listMessages(b, first.SessionID)
	if summary.SummaryOfSeq != all[len(all)-2].Seq {
		t.Fatalf("summary_of_seq %d, want the last message before it (%d)", summary.SummaryOfSeq, all[len(all)-2].Seq)
	}
	reqs := model.Requests()
	ask := reqs[len(reqs)-1]
	if !strings.HasPrefix(ask.System, llm.SummarySystem) || !strings.Contains(ask.Messages[len(ask.Messages)-1].Text, "keep the file names") {
		t.Fatalf("summary request: system %.60q, last message %q", ask.System, ask.Messages[len(ask.Messages)-1].Text)
	}
	next := b.send(first.SessionID, "after compaction")
	if tr := b.waitTurn(next.TurnID, 10*time.Second); tr.Status != protocol.TurnCompleted {
		t.Fatalf("next turn %s", tr.Status)
	}
	reqs = model.Requests()
	last := reqs[len(reqs)-1]
	if len(last.Messages) != 2 || !strings.HasPrefix(last.Messages[0].Text, llm.SummaryOpen) || last.Messages[1].Text != "after compaction" {
		t.Fatalf("request after compaction: %+v", last.Messages)
	}
	// Limits and errors.
	big := strings.Repeat("x", 4<<10+1)
	if _, err := b.call(t.Context(), protocol.MethodSessionCompact, protocol.SessionCompactRequest{SessionID: first.SessionID, Instruction: big}); protocol.CodeOf(err) != protocol.CodeTooLarge {
		t.Fatalf("long instruction: %v", err)
	}
	if _, err := b.call(t.Context(), protocol.MethodSessionCompact, protocol.SessionCompactRequest{SessionID: "nope"}); protocol.CodeOf(err) != protocol.CodeNotFound {
		t.Fatalf("unknown session: %v", err)
	}
}

// A failed turn shows an error message with its category and retryable flag;
// v1.turn.retry continues from the same user message, keeping the tool results
// the failed turn got, and answers correctly.
func TestRetryFailedTurn(t *testing.T) {
	brain := mustScript(t, writeReadScript)
	fake, provider := openAICase.serve(t, brain)
	s := startServer(t, nil, provider, func(c *config.Config) { c.Retries, c.RetryWait = 1, 10*time.Millisecond })
	b := newBrowser(t, s, "alice", "dev-a", noExecute)
	res := b.send("", "write and read")
	write := b.pendingRTC()
	fake.FailNext(2, 503) // the step after the write, and its one retry
	b.mustCall(protocol.MethodRTCSubmitResult, protocol.RTCSubmitResultRequest{RTCID: write.ID, ClientID: "w", OK: true, Output: jsonOf("wrote 9 bytes")}, nil)
	tr := b.waitTurn(res.TurnID, 10*time.Second)
	if tr.Status != protocol.TurnFailed || tr.Error == nil || tr.Error.Category != "model_error" || !tr.Error.Retryable {
		t.Fatalf("failed turn error %+v", tr.Error)
	}
	msgs := b.assistantMessages(res.SessionID)
	if last := msgs[len(msgs)-1]; last.Status != protocol.MessageError || last.Error == nil || !last.Error.Retryable || last.Error.Category != "model_error" {
		t.Fatalf("error message %+v", last)
	}
	retry := protocol.TurnRetryRequest{SessionID: res.SessionID, TurnID: res.TurnID, ClientID: "retry-1"}
	var again protocol.TurnStartResult
	b.mustCall(protocol.MethodTurnRetry, retry, &again)
	var same protocol.TurnStartResult
	b.mustCall(protocol.MethodTurnRetry, retry, &same)
	if same != again || again.TurnID == res.TurnID {
		t.Fatalf("retry not idempotent: %+v then %+v", again, same)
	}
	read := b.pendingRTC()
	if read.ToolName != "read" || read.TurnID != again.TurnID {
		t.Fatalf("the retry asked for %s in turn %s", read.ToolName, read.TurnID)
	}
	b.mustCall(protocol.MethodRTCSubmitResult, protocol.RTCSubmitResultRequest{RTCID: read.ID, ClientID: "r", OK: true, Output: jsonOf("hello rtc")}, nil)
	rt := b.waitTurn(again.TurnID, 10*time.Second)
	if rt.Status != protocol.TurnCompleted || rt.RetryOf != res.TurnID || rt.UserMessageID != tr.UserMessageID {
		t.Fatalf("retried turn %+v", rt)
	}
	msgs = b.assistantMessages(res.SessionID)
	if last := msgs[len(msgs)-1]; last.Text != "The file says: hello rtc. Done." {
		t.Fatalf("answer after retry %q", last.Text)
	}
	// The write ran once: the retry kept its result rather than asking again.
	writes := 0
	for _, r := range b.rtcsOf(res.SessionID) {
		if r.ToolName == "write" {
			writes++
		}
	}
	if writes != 1 {
		t.Fatalf("%d writes", writes)
	}
	// The retry's model requests do not carry the error message.
	reqs := fake.Requests()
	if strings.Contains(string(reqs[len(reqs)-1]), "unavailable right now") {
		t.Fatal("the error message reached the model")
	}
	// Only the latest failed or stopped turn can be retried.
	if _, err := b.call(t.Context(), protocol.MethodTurnRetry, protocol.TurnRetryRequest{SessionID: res.SessionID, TurnID: again.TurnID, ClientID: "r2"}); protocol.CodeOf(err) != protocol.CodeConflict {
		t.Fatalf("retry of a completed turn: %v", err)
	}
	if _, err := b.call(t.Context(), protocol.MethodTurnRetry, protocol.TurnRetryRequest{SessionID: res.SessionID, TurnID: res.TurnID, ClientID: "r3"}); protocol.CodeOf(err) != protocol.CodeConflict {
		t.Fatalf("retry of an older turn: %v", err)
	}
}

// The system prompt comes from its file, and the page's AGENT.md sent with a
// message is in the system prompt of every step of that message's turn.
func TestSystemPromptAndAgentMD(t *testing.T) {
	brain := mustScript(t, writeReadScript)
	fake, provider := anthropicCase.serve(t, brain)
	promptFile := filepath.Join(t.TempDir(), "prompt.txt")
	if err := os.WriteFile(promptFile, []byte("You are the shop's assistant.\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	s := startServer(t, nil, provider, func(c *config.Config) { c.SysFile = promptFile })
	b := newBrowser(t, s, "alice", "dev-a")
	const agentMD = "# Shop rules\nAlways answer in French."
	var res protocol.MessageSendResult
	b.mustCall(protocol.MethodMessageSend, protocol.MessageSendRequest{ClientID: "m1", Content: protocol.MessageContent{Text: "write and read"},
		Context: &protocol.MessageContext{AgentMD: agentMD}}, &res)
	if tr := b.waitTurn(res.TurnID, 10*time.Second); tr.Status != protocol.TurnCompleted {
		t.Fatalf("turn %s", tr.Status)
	}
	reqs := brain.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d steps", len(reqs))
	}
	for i, r := range reqs {
		if !strings.HasPrefix(r.System, "You are the shop's assistant.") || !strings.Contains(r.System, "<host_site_instructions source=\"AGENT.md\">\n"+agentMD+"\n</host_site_instructions>") {
			t.Fatalf("step %d system prompt:\n%s", i, r.System)
		}
	}
	if raw := string(fake.Requests()[0]); !strings.Contains(raw, "Always answer in French.") {
		t.Fatal("AGENT.md not in the provider request")
	}
	// A message without it: the server's prompt alone.
	next := b.send(res.SessionID, "again")
	b.waitTurn(next.TurnID, 10*time.Second)
	reqs = brain.Requests()
	if sys := reqs[len(reqs)-1].System; sys != "You are the shop's assistant." {
		t.Fatalf("system prompt without AGENT.md: %q", sys)
	}
	big := strings.Repeat("x", 32<<10+1)
	_, err := b.call(t.Context(), protocol.MethodMessageSend, protocol.MessageSendRequest{ClientID: "m2", Content: protocol.MessageContent{Text: "x"},
		Context: &protocol.MessageContext{AgentMD: big}})
	if protocol.CodeOf(err) != protocol.CodeTooLarge {
		t.Fatalf("AGENT.md over the limit: %v", err)
	}
}

// Cost: with a price table for the provider's model, every message, turn and
// session usage carries cost_usd, and the session's equals the provider's
// reported tokens times the prices; a model without a price has no cost.
func TestCostFromPriceTable(t *testing.T) {
	fake, provider := openAICase.serve(t, mustScript(t, writeReadScript))
	prices := filepath.Join(t.TempDir(), "prices.json")
	if err := os.WriteFile(prices, []byte(`{"gpt-test": {"input_per_mtok": 3, "output_per_mtok": 15}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	s := startServer(t, nil, provider, func(c *config.Config) { c.Prices = prices })
	b := newBrowser(t, s, "alice", "dev-a")
	res := b.send("", "write and read")
	b.waitTurn(res.TurnID, 10*time.Second)
	res2 := b.send(res.SessionID, "write and read")
	b.waitTurn(res2.TurnID, 10*time.Second)
	var got protocol.SessionResult
	b.mustCall(protocol.MethodSessionGet, protocol.IDRequest{SessionID: res.SessionID}, &got)
	u, want := got.Session.Usage, fake.Usage()
	wantCost := float64(want.InputTokens)*3/1e6 + float64(want.OutputTokens)*15/1e6
	if u.InputTokens != want.InputTokens || u.OutputTokens != want.OutputTokens || u.CostUSD == nil || !near(*u.CostUSD, wantCost) {
		t.Fatalf("session usage %+v (cost %v), provider %+v, want cost %v", u, costOf(u), want, wantCost)
	}
	var sum protocol.Usage
	for _, m := range b.assistantMessages(res.SessionID) {
		if m.Usage != nil {
			if m.Usage.CostUSD == nil {
				t.Fatalf("message %s without cost", m.ID)
			}
			sum.Add(*m.Usage)
		}
	}
	if sum.InputTokens != u.InputTokens || !near(*sum.CostUSD, *u.CostUSD) {
		t.Fatalf("messages sum to %+v (cost %v)", sum, costOf(sum))
	}
	tr, _ := b.turn(res.TurnID)
	if tr.Usage.CostUSD == nil || *tr.Usage.CostUSD <= 0 {
		t.Fatalf("turn usage %+v", tr.Usage)
	}
	// session.updated carries the totals on the Topic channel (it follows the
	// turn's last update).
	var fromTopic protocol.Session
	waitFor(t, "session.updated with the totals", 10*time.Second, func() bool {
		b.mu.Lock()
		defer b.mu.Unlock()
		for _, data := range changesOf(b.updates, protocol.UpdSessionUpdated) {
			_ = json.Unmarshal(data, &fromTopic)
		}
		return fromTopic.Usage.InputTokens == want.InputTokens
	})
	if fromTopic.Usage.CostUSD == nil || !near(*fromTopic.Usage.CostUSD, wantCost) || fromTopic.ContextTokens == 0 {
		t.Fatalf("session.updated usage %+v context %d", fromTopic.Usage, fromTopic.ContextTokens)
	}
}

// Without a price the cost is unknown, not zero.
func TestCostUnknownWithoutPrice(t *testing.T) {
	s := startServer(t, mustScript(t, writeReadScript))
	b := newBrowser(t, s, "alice", "dev-a")
	res := b.send("", "write and read")
	b.waitTurn(res.TurnID, 10*time.Second)
	var got protocol.SessionResult
	b.mustCall(protocol.MethodSessionGet, protocol.IDRequest{SessionID: res.SessionID}, &got)
	if got.Session.Usage.InputTokens == 0 || got.Session.Usage.CostUSD != nil {
		t.Fatalf("usage %+v cost %v", got.Session.Usage, costOf(got.Session.Usage))
	}
	if raw := string(jsonOf(got.Session)); strings.Contains(raw, "cost_usd") {
		t.Fatalf("unknown cost on the wire: %s", raw)
	}
}

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-12+1e-9*math.Abs(b) }

func costOf(u protocol.Usage) string {
	if u.CostUSD == nil {
		return "unknown"
	}
	return fmt.Sprint(*u.CostUSD)
}

// rtcsOf returns the RTCs of a session the client has seen.
func (b *browser) rtcsOf(sessionID string) []protocol.RTC {
	b.mu.Lock()
	defer b.mu.Unlock()
	var out []protocol.RTC
	for _, r := range b.rtcs {
		if r.SessionID == sessionID {
			out = append(out, r)
		}
	}
	return out
}

// A compact turn is stoppable like any turn: the summary streamed so far stays
// as an interrupted message, and the model keeps reading the whole history.
func TestStopCompactTurn(t *testing.T) {
	model := mustScript(t, `{"name": "c", "summary": {"delay_ms": 100}, "turns": [{"steps": [{"text": "echo: {{user}}"}]}]}`)
	s := startServer(t, model)
	b := newBrowser(t, s, "alice", "dev-a")
	first := b.send("", "a long question to summarise later")
	b.waitTurn(first.TurnID, 10*time.Second)
	var comp protocol.TurnStartResult
	b.mustCall(protocol.MethodSessionCompact, protocol.SessionCompactRequest{SessionID: first.SessionID}, &comp)
	var summary protocol.Message
	waitFor(t, "the summary to stream", 10*time.Second, func() bool {
		b.mu.Lock()
		defer b.mu.Unlock()
		for _, m := range b.messages {
			if m.Role == protocol.RoleSummary && len(b.deltas[m.ID]) > 0 {
				summary = m
				return true
			}
		}
		return false
	})
	b.mustCall(protocol.MethodTurnStop, protocol.IDRequest{SessionID: first.SessionID}, nil)
	if tr := b.waitTurn(comp.TurnID, 10*time.Second); tr.Status != protocol.TurnStopped || tr.Kind != protocol.TurnKindCompact {
		t.Fatalf("compact turn %s %s", tr.Kind, tr.Status)
	}
	waitFor(t, "the summary to be closed", 10*time.Second, func() bool {
		b.mu.Lock()
		defer b.mu.Unlock()
		return b.messages[summary.ID].Status == protocol.MessageInterrupted
	})
	next := b.send(first.SessionID, "next")
	b.waitTurn(next.TurnID, 10*time.Second)
	reqs := model.Requests()
	last := reqs[len(reqs)-1]
	if len(last.Messages) != 3 || last.Messages[0].Text != "a long question to summarise later" {
		t.Fatalf("after a stopped compaction the model reads %+v", last.Messages)
	}
}
