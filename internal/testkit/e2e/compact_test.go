package e2e

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/rtcagent/rtcagent/internal/config"
	"github.com/rtcagent/rtcagent/internal/llm"
	"github.com/rtcagent/rtcagent/internal/llm/scripted"
	"github.com/rtcagent/rtcagent/internal/protocol"
)

// factRE matches the facts the browser's tool results carry.
const factRE = `fact-\d+=[0-9a-f]+`

// factsScript: "collect" reads /facts/0 … /facts/n1-1, "more" reads the next n2;
// each ends with an answer listing every fact the request still holds. The
// scripted summaries keep the facts, so the answers are whole only if the
// summaries and the kept tail together carry every fact.
func factsScript(t testing.TB, n1, n2 int) *scripted.Model {
	turn := func(match string, from, n int) scripted.Turn {
		tr := scripted.Turn{Match: match}
		for i := from; i < from+n; i++ {
			tr.Steps = append(tr.Steps, scripted.Step{ToolCalls: []scripted.ToolCall{{Name: "read",
				Arguments: json.RawMessage(fmt.Sprintf(`{"path": "/facts/%d"}`, i))}}})
		}
		tr.Steps = append(tr.Steps, scripted.Step{Text: "facts: {{find:" + factRE + "}}"})
		return tr
	}
	m, err := scripted.New(scripted.Script{Name: "facts", Summary: &scripted.Summary{Keep: factRE},
		Turns: []scripted.Turn{turn("collect", 0, n1), turn("more", n1, n2)}})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func factOf(i int) string { return fmt.Sprintf("fact-%d=%x", i, i*7919+13) }

// factsBrowser answers read /facts/<i> with the fact and some filler, so the
// context grows by about 150 tokens a step.
func factsBrowser(b *browser) {
	b.decide = func(r protocol.RTC) (bool, any, string, bool) {
		var args struct{ Path string }
		_ = json.Unmarshal(r.Arguments, &args)
		var i int
		if _, err := fmt.Sscanf(args.Path, "/facts/%d", &i); err != nil {
			return false, nil, "no such file", false
		}
		return true, factOf(i) + "\n" + strings.Repeat("filler text of a long tool result. ", 15), "", false
	}
}

func wantFacts(from, to int) string {
	var fs []string
	for i := from; i < to; i++ {
		fs = append(fs, factOf(i))
	}
	return "facts: " + strings.Join(fs, ",")
}

func compactOpts(threshold, keep int) serverOpt {
	return func(c *config.Config) { c.CompactAt, c.CompactKeep, c.StepLimit = threshold, keep, 300 }
}

// A session of 210 tool calls over two turns crosses the compaction threshold
// many times and still answers with every fact, although the last model request
// holds only the latest summary and a short tail.
func TestCompactionLongSession(t *testing.T) {
	const n1, n2, threshold = 120, 90, 3000
	model := factsScript(t, n1, n2)
	s := startServer(t, model, compactOpts(threshold, 800))
	b := newBrowser(t, s, "alice", "dev-a", factsBrowser)
	first := b.send("", "collect the facts")
	if tr := b.waitTurn(first.TurnID, 10*time.Minute); tr.Status != protocol.TurnCompleted {
		t.Fatalf("first turn %s %+v", tr.Status, tr.Error)
	}
	second := b.send(first.SessionID, "more facts")
	if tr := b.waitTurn(second.TurnID, 10*time.Minute); tr.Status != protocol.TurnCompleted {
		t.Fatalf("second turn %s %+v", tr.Status, tr.Error)
	}
	msgs := listMessages(b, first.SessionID)
	var answers, summaries []protocol.Message
	calls := 0
	for _, m := range msgs {
		switch {
		case m.Role == protocol.RoleSummary && m.Status == protocol.MessageInterrupted:
			// A summary cut off by a lease lost on a loaded machine: the next
			// owner summarizes again, and this one stays in the history.
		case m.Role == protocol.RoleSummary:
			summaries = append(summaries, m)
		case m.Role == protocol.RoleAssistant && len(m.ToolCalls) == 0:
			answers = append(answers, m)
		case m.Role == protocol.RoleAssistant:
			calls += len(m.ToolCalls)
		}
	}
	if calls != n1+n2 {
		t.Fatalf("the stored history has %d tool calls, want %d: it must stay whole", calls, n1+n2)
	}
	if len(answers) != 2 || answers[0].Text != wantFacts(0, n1) || answers[1].Text != wantFacts(0, n1+n2) {
		t.Fatalf("answers lost facts:\n%v", answers)
	}
	if len(summaries) < 3 {
		t.Fatalf("%d summaries, want several", len(summaries))
	}
	for i, sm := range summaries {
		if sm.Status != protocol.MessageComplete || sm.SummaryOfSeq <= 0 || sm.SummaryOfSeq >= sm.Seq ||
			(i > 0 && sm.SummaryOfSeq <= summaries[i-1].SummaryOfSeq) || sm.Usage == nil {
			t.Fatalf("summary %d: %+v", i, sm)
		}
	}
	// The last request: one summary block, a short tail, the first facts only in
	// the summary.
	reqs := model.Requests()
	last := reqs[len(reqs)-1]
	blocks, tools := 0, 0
	for _, m := range last.Messages {
		if strings.HasPrefix(m.Text, llm.SummaryOpen) {
			blocks++
		}
		if m.Role == llm.RoleTool {
			tools++
			if strings.Contains(m.Text, factOf(0)) {
				t.Fatal("the first tool result reached the last request verbatim")
			}
		}
	}
	if blocks != 1 || tools == 0 || tools > 20 || !strings.HasPrefix(last.Messages[0].Text, llm.SummaryOpen) {
		t.Fatalf("last request: %d summary blocks, %d tool results in %d messages", blocks, tools, len(last.Messages))
	}
	var sess protocol.SessionResult
	b.mustCall(protocol.MethodSessionGet, protocol.IDRequest{SessionID: first.SessionID}, &sess)
	if sess.Session.ContextTokens <= 0 || sess.Session.ContextTokens > threshold {
		t.Fatalf("context tokens %d after compaction, threshold %d", sess.Session.ContextTokens, threshold)
	}
	t.Logf("%d tool calls, %d summaries, %d model requests, last request %d messages, context %d tokens",
		calls, len(summaries), len(reqs), len(last.Messages), sess.Session.ContextTokens)
}

// listMessages pages through v1.message.list.
func listMessages(b *browser, sessionID string) []protocol.Message {
	var out []protocol.Message
	cursor := ""
	for {
		var page protocol.MessageListResult
		b.mustCall(protocol.MethodMessageList, protocol.ListRequest{SessionID: sessionID, Cursor: cursor}, &page)
		out = append(out, page.Messages...)
		if page.NextCursor == "" {
			return out
		}
		cursor = page.NextCursor
	}
}
