package scripted

import (
	"strings"
	"testing"

	"github.com/rtcagent/rtcagent/internal/llm"
)

const summaryScript = `{"name": "sum", "summary": {"keep": "k-\\d+"}, "turns": [
  {"match": "go", "steps": [
    {"tool_calls": [{"name": "read"}]}, {"tool_calls": [{"name": "read"}]}, {"tool_calls": [{"name": "read"}]},
    {"text": "seen {{find:k-\\d+}}"}]}]}`

// A summary request is answered with the kept matches and the state line; a
// request that starts from that summary continues the script where the
// summarised conversation stood, with the same tool call ids.
func TestSummaryContinuesTheScript(t *testing.T) {
	m := mustParse(t, summaryScript)
	full := []llm.Message{user("go")}
	for i := range 2 {
		r := drain(t, m, &llm.Request{Messages: full})
		full = append(full, llm.Message{Role: llm.RoleAssistant, ToolCalls: r.calls}, tool(r.calls[0].ID, "value k-"+string(rune('1'+i))))
	}
	sum := drain(t, m, &llm.Request{System: llm.SummarySystem, Messages: append(append([]llm.Message(nil), full...), user(llm.SummaryAsk+" more"))})
	text := sum.text()
	if !strings.HasPrefix(text, "k-1\nk-2\n"+stateMark) || len(sum.usage) != 1 {
		t.Fatalf("summary %q", text)
	}
	block := user(llm.SummaryOpen + "\n" + text + "\n" + llm.SummaryClose)
	next := drain(t, m, &llm.Request{Messages: []llm.Message{block}})
	direct := drain(t, m, &llm.Request{Messages: full})
	if len(next.calls) != 1 || next.calls[0].ID != direct.calls[0].ID || next.calls[0].ID != "call_1_2_0" {
		t.Fatalf("after the summary: %+v, without: %+v", next.calls, direct.calls)
	}
	// The last step finds the facts in the summary and the tail.
	tail := []llm.Message{block, {Role: llm.RoleAssistant, ToolCalls: next.calls}, tool(next.calls[0].ID, "k-3")}
	if got := drain(t, m, &llm.Request{Messages: tail}).text(); got != "seen k-1,k-2,k-3" {
		t.Fatalf("answer %q", got)
	}
	// A provider that merges the summary with the next user message.
	merged := drain(t, m, &llm.Request{Messages: []llm.Message{user(block.Text + "\n\ngo again")}})
	if len(merged.calls) != 1 || merged.calls[0].ID != "call_2_0_0" {
		t.Fatalf("merged user message: %+v", merged.calls)
	}
}
