package scripted

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/rtcagent/rtcagent/internal/llm"
)

// result is everything one stream produced.
type result struct {
	texts  []string
	pieces []llm.ToolCallDelta
	calls  []llm.ToolCall
	usage  []llm.Usage
	err    error
}

func (r result) text() string { return strings.Join(r.texts, "") }

func drain(t *testing.T, m llm.Model, req *llm.Request) result {
	t.Helper()
	s, err := m.Stream(context.Background(), req)
	if err != nil {
		t.Fatalf("Stream: %v", err)
	}
	defer s.Close()
	var r result
	pieces := map[int]string{}
	for s.Next() {
		ev := s.Current()
		switch ev.Kind {
		case llm.EventText:
			r.texts = append(r.texts, ev.Text)
		case llm.EventToolCallDelta:
			pieces[ev.Delta.Index] += ev.Delta.Args
			r.pieces = append(r.pieces, ev.Delta)
		case llm.EventToolCall:
			if p, ok := pieces[len(r.calls)]; ok && p != string(ev.ToolCall.Arguments) {
				t.Fatalf("call %d written in pieces as %q, then whole as %s", len(r.calls), p, ev.ToolCall.Arguments)
			}
			r.calls = append(r.calls, ev.ToolCall)
		case llm.EventUsage:
			r.usage = append(r.usage, ev.Usage)
		default:
			t.Fatalf("unexpected event kind %d", ev.Kind)
		}
	}
	r.err = s.Err()
	return r
}

func mustParse(t *testing.T, js string) *Model {
	t.Helper()
	m, err := Parse([]byte(js))
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	return m
}

func user(text string) llm.Message      { return llm.Message{Role: llm.RoleUser, Text: text} }
func assistant(text string) llm.Message { return llm.Message{Role: llm.RoleAssistant, Text: text} }
func tool(id, text string) llm.Message {
	return llm.Message{Role: llm.RoleTool, ToolCallID: id, Text: text}
}

const selectionScript = `{"name": "sel", "turns": [
  {"match": "(?i)hello", "steps": [{"text": "hello-0"}, {"text": "hello-1"}]},
  {"steps": [{"text": "first-0"}]},
  {"match": "bye", "steps": [{"text": "bye-0"}]},
  {"steps": [{"text": "second-0"}]}
]}`

func TestTurnSelection(t *testing.T) {
	m := mustParse(t, selectionScript)
	if got := m.Name(); got != "scripted:sel" {
		t.Fatalf("Name = %q", got)
	}
	cases := []struct {
		msgs []llm.Message
		want string
	}{
		{[]llm.Message{user("HELLO you")}, "hello-0"},
		{[]llm.Message{user("say bye")}, "bye-0"},
		// Match-less turns rotate by the number of user messages.
		{[]llm.Message{user("x")}, "first-0"},
		{[]llm.Message{user("x"), assistant("a"), user("y")}, "second-0"},
		{[]llm.Message{user("x"), assistant("a"), user("y"), assistant("b"), user("z")}, "first-0"},
		// Only the last user message is matched.
		{[]llm.Message{user("hello"), assistant("a"), user("nothing")}, "second-0"},
		{[]llm.Message{user("nothing"), assistant("a"), user("hello")}, "hello-0"},
	}
	for i, c := range cases {
		if got := drain(t, m, &llm.Request{Messages: c.msgs}).text(); got != c.want {
			t.Errorf("case %d: text = %q, want %q", i, got, c.want)
		}
	}
}

func TestNoMatchingTurn(t *testing.T) {
	m := mustParse(t, `{"name": "only", "turns": [{"match": "^a$", "steps": [{"text": "a"}]}]}`)
	r := drain(t, m, &llm.Request{Messages: []llm.Message{user("b")}})
	if !strings.Contains(r.text(), "no turn") || r.err != nil || len(r.calls) != 0 {
		t.Fatalf("got %+v", r)
	}
}

func TestStepSelectionAndEndOfScript(t *testing.T) {
	m := mustParse(t, selectionScript)
	msgs := []llm.Message{user("hello")}
	for _, want := range []string{"hello-0", "hello-1", EndOfScript, EndOfScript} {
		r := drain(t, m, &llm.Request{Messages: msgs})
		if r.text() != want || len(r.calls) != 0 || r.err != nil {
			t.Fatalf("after %d messages: got %+v, want text %q", len(msgs), r, want)
		}
		// Tool messages between steps must not count as steps.
		msgs = append(msgs, assistant(r.text()), tool("id", "result"))
	}
}

func TestTextSplitting(t *testing.T) {
	texts := []string{
		"Let me write a file.",
		"  leading and   inner\n\nnewlines\ttabs ",
		"héllo wörld — ünïcode 日本語 テキスト",
		"single",
		"   ",
		"",
	}
	for _, text := range texts {
		pieces := splitWords(text)
		if got := strings.Join(pieces, ""); got != text {
			t.Errorf("split(%q) joins to %q", text, got)
		}
		if words := len(strings.Fields(text)); words > 1 && len(pieces) != words {
			t.Errorf("split(%q) = %q: want one piece per word (%d)", text, pieces, words)
		}
		for _, p := range pieces {
			if p == "" {
				t.Errorf("split(%q) has an empty piece", text)
			}
		}
	}
	m, err := New(Script{Name: "s", Turns: []Turn{{Steps: []Step{{Text: texts[1]}}}}})
	if err != nil {
		t.Fatal(err)
	}
	r := drain(t, m, &llm.Request{Messages: []llm.Message{user("x")}})
	if r.text() != texts[1] || len(r.texts) < 3 {
		t.Fatalf("streamed %q", r.texts)
	}
}

func TestChunksAndTemplates(t *testing.T) {
	m := mustParse(t, `{"name": "t", "turns": [{"steps": [
	  {"chunks": ["The file ", "says: ", "{{last_result}}", "", " (you said {{user}})"]}
	]}]}`)
	msgs := []llm.Message{
		user("first"), assistant("a"), tool("c1", "old result"), user("read it"),
		{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{{ID: "c2", Name: "read"}}},
		tool("c2", "one"), tool("c3", "two"),
	}
	// The step index counts assistant messages after the last user message: one
	// here, so cut the transcript to be at step 0 for the template check.
	r := drain(t, m, &llm.Request{Messages: msgs[:4]})
	want := []string{"The file ", "says: ", "old result", " (you said read it)"}
	if fmt.Sprint(r.texts) != fmt.Sprint(want) {
		t.Fatalf("chunks = %q, want %q", r.texts, want)
	}
	m2 := mustParse(t, `{"name": "t", "turns": [{"steps": [{"text": "x"}, {"text": "got {{last_result}}"}]}]}`)
	if got := drain(t, m2, &llm.Request{Messages: msgs}).text(); got != "got two" {
		t.Fatalf("text = %q", got)
	}
	if got := drain(t, m, &llm.Request{Messages: []llm.Message{user("u")}}).text(); got != "The file says:  (you said u)" {
		t.Fatalf("without tool results: %q", got)
	}
}

func TestToolCallsIDsAndArguments(t *testing.T) {
	m := mustParse(t, `{"name": "c", "turns": [{"steps": [
	  {"text": "go", "tool_calls": [
	    {"name": "write", "arguments": {"path": "/a.txt",   "content": "hi"}},
	    {"name": "read", "raw_arguments": "{\"path\": "},
	    {"name": "ls"},
	    {"name": "n", "arguments": [1, 2]}
	  ]},
	  {"tool_calls": [{"name": "ls", "arguments": {"path": "/"}}]}
	]}]}`)
	r := drain(t, m, &llm.Request{Messages: []llm.Message{user("x")}})
	want := []llm.ToolCall{
		{ID: "call_1_0_0", Name: "write", Arguments: []byte(`{"path":"/a.txt","content":"hi"}`)},
		{ID: "call_1_0_1", Name: "read", Arguments: []byte(`{"path": `)},
		{ID: "call_1_0_2", Name: "ls", Arguments: []byte(`{}`)},
		{ID: "call_1_0_3", Name: "n", Arguments: []byte(`[1,2]`)},
	}
	if len(r.calls) != len(want) {
		t.Fatalf("calls = %+v", r.calls)
	}
	for i := range want {
		got := r.calls[i]
		if got.ID != want[i].ID || got.Name != want[i].Name || string(got.Arguments) != string(want[i].Arguments) {
			t.Errorf("call %d = %s %s %s, want %s %s %s", i, got.ID, got.Name, got.Arguments,
				want[i].ID, want[i].Name, want[i].Arguments)
		}
	}
	// Ids stay unique across the steps and turns of one conversation.
	seen := map[string]bool{}
	var msgs []llm.Message
	for turn := 0; turn < 3; turn++ {
		msgs = append(msgs, user("x"))
		for step := 0; step < 2; step++ {
			r := drain(t, m, &llm.Request{Messages: msgs})
			for _, c := range r.calls {
				if seen[c.ID] {
					t.Fatalf("duplicate id %s", c.ID)
				}
				seen[c.ID] = true
			}
			msgs = append(msgs, llm.Message{Role: llm.RoleAssistant, ToolCalls: r.calls})
		}
	}
	if len(seen) != 15 {
		t.Fatalf("saw %d ids, want 15", len(seen))
	}
}

func TestUsageIsDeterministic(t *testing.T) {
	m := mustParse(t, `{"name": "u", "turns": [{"steps": [{"text": "0123456789ab"}, {"text": "x"}]}]}`)
	r := drain(t, m, &llm.Request{Messages: []llm.Message{user("abcdefghijklmnopqrst")}})
	if len(r.usage) != 1 || r.usage[0] != (llm.Usage{InputTokens: 5, OutputTokens: 3}) {
		t.Fatalf("usage = %+v", r.usage)
	}
	msgs := []llm.Message{user("ab"), {Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{{Name: "ls", Arguments: []byte("{}")}}}}
	r = drain(t, m, &llm.Request{Messages: msgs})
	if len(r.usage) != 1 || r.usage[0] != (llm.Usage{InputTokens: 1, OutputTokens: 1}) {
		t.Fatalf("minimum usage = %+v", r.usage)
	}
}

func TestErrorStep(t *testing.T) {
	m := mustParse(t, `{"name": "e", "turns": [{"steps": [
	  {"chunks": ["partial ", "text"], "tool_calls": [{"name": "ls"}],
	   "error": {"category": "rate_limited", "retryable": true, "status": 429, "message": "slow down"}}
	]}]}`)
	r := drain(t, m, &llm.Request{Messages: []llm.Message{user("x")}})
	if r.text() != "partial text" || len(r.calls) != 0 || len(r.usage) != 0 {
		t.Fatalf("events before the error: %+v", r)
	}
	var me *llm.Error
	if !errors.As(r.err, &me) {
		t.Fatalf("err = %v, want *llm.Error", r.err)
	}
	if me.Category != "rate_limited" || !me.Retryable || me.Status != 429 || me.Err.Error() != "slow down" {
		t.Fatalf("err = %+v", me)
	}
}

func TestDelayHonoursCancellation(t *testing.T) {
	m := mustParse(t, `{"name": "d", "turns": [{"steps": [{"chunks": ["a", "b", "c"], "delay_ms": 20}]}]}`)
	start := time.Now()
	r := drain(t, m, &llm.Request{Messages: []llm.Message{user("x")}})
	if r.text() != "abc" || r.err != nil {
		t.Fatalf("got %+v", r)
	}
	// Three more events (b, c, usage) each wait for the delay.
	if el := time.Since(start); el < 60*time.Millisecond {
		t.Fatalf("finished in %v, want the delays honoured", el)
	}

	slow := mustParse(t, `{"name": "d", "turns": [{"steps": [{"chunks": ["a", "b"], "delay_ms": 60000}]}]}`)
	ctx, cancel := context.WithCancel(context.Background())
	s, err := slow.Stream(ctx, &llm.Request{Messages: []llm.Message{user("x")}})
	if err != nil {
		t.Fatal(err)
	}
	if !s.Next() || s.Current().Text != "a" {
		t.Fatal("first chunk should come without delay")
	}
	time.AfterFunc(20*time.Millisecond, cancel)
	start = time.Now()
	if s.Next() {
		t.Fatal("Next after cancel returned true")
	}
	if !errors.Is(s.Err(), context.Canceled) {
		t.Fatalf("Err = %v, want context.Canceled", s.Err())
	}
	if el := time.Since(start); el > 10*time.Second {
		t.Fatalf("cancellation took %v", el)
	}
	if _, err := slow.Stream(ctx, &llm.Request{}); !errors.Is(err, context.Canceled) {
		t.Fatalf("Stream on a cancelled context: %v", err)
	}
}

func TestCloseStopsStream(t *testing.T) {
	m := mustParse(t, `{"name": "c", "turns": [{"steps": [{"chunks": ["a", "b"]}]}]}`)
	s, _ := m.Stream(context.Background(), &llm.Request{Messages: []llm.Message{user("x")}})
	if !s.Next() {
		t.Fatal("no first event")
	}
	s.Close()
	if s.Next() || s.Err() != nil {
		t.Fatalf("after Close: Next true or Err %v", s.Err())
	}
}

func TestRequestsAreDeepCopies(t *testing.T) {
	m := mustParse(t, selectionScript)
	req := &llm.Request{
		System:   "sys",
		Messages: []llm.Message{user("hello"), {Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{{ID: "1", Name: "ls", Arguments: []byte(`{"path":"/"}`)}}}},
		Tools:    []llm.ToolSpec{{Name: "ls", Parameters: []byte(`{"type":"object"}`)}},
	}
	drain(t, m, req)
	req.Messages[0].Text = "changed"
	req.Messages[1].ToolCalls[0].Arguments[2] = 'X'
	req.Tools[0].Parameters[2] = 'X'
	got := m.Requests()
	if len(got) != 1 || got[0].System != "sys" || got[0].Messages[0].Text != "hello" ||
		string(got[0].Messages[1].ToolCalls[0].Arguments) != `{"path":"/"}` ||
		string(got[0].Tools[0].Parameters) != `{"type":"object"}` {
		t.Fatalf("recorded request changed with the caller's: %+v", got)
	}
	got[0].Messages[0].Text = "mutated"
	if m.Requests()[0].Messages[0].Text != "hello" {
		t.Fatal("Requests returned shared memory")
	}
}

func TestConcurrentUse(t *testing.T) {
	m := mustParse(t, selectionScript)
	var wg sync.WaitGroup
	for i := 0; i < 16; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := 0; j < 20; j++ {
				s, err := m.Stream(context.Background(), &llm.Request{Messages: []llm.Message{user("hello")}})
				if err != nil {
					t.Error(err)
					return
				}
				for s.Next() {
				}
				_ = m.Requests()
			}
		}()
	}
	wg.Wait()
	if n := len(m.Requests()); n != 16*20 {
		t.Fatalf("recorded %d requests", n)
	}
}

// A call with argument_chunks is first written in that many pieces (cut at
// rune boundaries) that join to its arguments, with its id and name; a call
// without comes whole only.
func TestArgumentChunks(t *testing.T) {
	m := mustParse(t, `{"name": "d", "turns": [{"steps": [{"tool_calls": [
	  {"name": "write", "arguments": {"path": "/é✓.md"}, "argument_chunks": 5},
	  {"name": "ls"}]}]}]}`)
	r := drain(t, m, &llm.Request{Messages: []llm.Message{user("hi")}})
	if len(r.pieces) != 5 || len(r.calls) != 2 {
		t.Fatalf("%d pieces and %d calls, want 5 and 2", len(r.pieces), len(r.calls))
	}
	joined := ""
	for _, p := range r.pieces {
		if p.Index != 0 || p.ID != r.calls[0].ID || p.Name != "write" || !utf8.ValidString(p.Args) {
			t.Fatalf("piece %+v of call %+v", p, r.calls[0])
		}
		joined += p.Args
	}
	if joined != string(r.calls[0].Arguments) {
		t.Fatalf("pieces join to %q, the call's arguments are %s", joined, r.calls[0].Arguments)
	}
	if _, err := Parse([]byte(`{"name": "d", "turns": [{"steps": [{"tool_calls": [{"name": "ls", "argument_chunks": -1}]}]}]}`)); err == nil {
		t.Fatal("a negative argument_chunks was accepted")
	}
}
