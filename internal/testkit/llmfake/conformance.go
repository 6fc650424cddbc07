package llmfake

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"sync"
	"testing"

	"github.com/rtcagent/rtcagent/internal/llm"
	"github.com/rtcagent/rtcagent/internal/llm/llmwire"
	"github.com/rtcagent/rtcagent/internal/llm/scripted"
)

// ConformanceScript is the brain of Conformance; turns are chosen by the first
// word of the user message.
const ConformanceScript = `{"name": "conformance", "turns": [
  {"match": "^fail", "steps": [{"chunks": ["partial "],
    "error": {"category": "provider_unavailable", "retryable": true, "message": "backend exploded"}}]},
  {"match": "^slow", "steps": [{"chunks": ["first ", "second"], "delay_ms": 60000}]},
  {"match": "^broken", "steps": [{"text": "Broken call.", "tool_calls": [{"name": "read", "raw_arguments": "{\"path\": "}]}]},
  {"steps": [
    {"text": "Let me look at two files.", "tool_calls": [
      {"name": "read", "arguments": {"path": "/notes/ünïcödé ✓.md", "offset": 1, "limit": 20}},
      {"name": "ls", "arguments": {"path": "/"}}]},
    {"chunks": ["Both done: ", "{{last_result}}"]}
  ]}
]}`

// ConformanceTools are the tools offered in Conformance requests.
var ConformanceTools = []llm.ToolSpec{
	{Name: "read", Description: "Read a file.", Parameters: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"},"offset":{"type":"integer"},"limit":{"type":"integer"}},"required":["path"],"additionalProperties":false}`)},
	{Name: "ls", Description: "List a directory.", Parameters: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}}}`)},
}

// Provider tells Conformance how to run one provider against its fake.
type Provider struct {
	Start func(brain llm.Model) *Server
	// Open builds the provider's model from cfg (its New).
	Open func(cfg llmwire.Config) (llm.Model, error)
	// ContextLengthMessage is how the provider words a too-long prompt.
	ContextLengthMessage string
	// Statuses are checked besides the common ones.
	Statuses []StatusCase
	// InvalidSchemas are tool parameters the provider must refuse before
	// sending anything.
	InvalidSchemas []string
	// Unfinished is a stream body in the provider's wire format that ends in
	// the middle of a tool call, without the event that finishes a step.
	Unfinished string
}

// open builds the provider for baseURL with the SDK's own retries and the step
// deadlines set.
func (p Provider) open(t *testing.T, baseURL string, retries int, d llm.Deadlines) llm.Model {
	t.Helper()
	m, err := p.Open(llmwire.Config{BaseURL: baseURL, APIKey: "test-key", Model: "test-model", MaxRetries: retries, Deadlines: d})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// startFake starts the provider's fake server with the conformance script as its
// model, closed at the test's end, and builds the provider's model against it.
func startFake(t *testing.T, p Provider, retries int, d llm.Deadlines) (*scripted.Model, *Server, llm.Model) {
	t.Helper()
	brain, srv := StartScript(t, p.Start, ConformanceScript)
	return brain, srv, p.open(t, srv.URL(), retries, d)
}

// StatusCase is an HTTP failure and the *llm.Error it must map to.
type StatusCase struct {
	Status    int
	Message   string // "" for the fake's default
	Category  string
	Retryable bool
}

// Conformance runs the behaviour every provider must share against the real
// SDK code path: streaming, tool-call reassembly, usage, transcript round trip,
// error mapping, cancellation, network failures and stalls.
func Conformance(t *testing.T, p Provider) {
	env := func(t *testing.T, retries int) (*scripted.Model, *Server, llm.Model) {
		t.Helper()
		return startFake(t, p, retries, llm.Deadlines{})
	}
	t.Run("Config", func(t *testing.T) { testConfig(t, p) })
	t.Run("InvalidToolSchemaIsNotSent", func(t *testing.T) { testInvalidSchemas(t, p) })
	t.Run("TwoStepConversation", func(t *testing.T) {
		brain, srv, m := env(t, 0)
		testConversation(t, brain, srv, m)
	})
	t.Run("HTTPErrors", func(t *testing.T) {
		_, srv, m := env(t, 0)
		testHTTPErrors(t, p, srv, m)
	})
	t.Run("SDKRetries", func(t *testing.T) {
		_, srv, m := env(t, 2)
		srv.FailNext(2, 503)
		if r := stream(t, m, context.Background(), "hello"); r.Err != nil || r.Text == "" {
			t.Fatalf("after two retried failures: %+v", r)
		}
		if n := len(srv.Requests()); n != 3 {
			t.Fatalf("server saw %d requests, want 3", n)
		}
	})
	t.Run("MidStreamError", func(t *testing.T) {
		_, srv, m := env(t, 0)
		r := stream(t, m, context.Background(), "fail now")
		me := wantError(t, r.Err, "provider_unavailable", true)
		if r.Text != "partial " || len(r.ToolCalls) != 0 || me.RequestID != "req_fake_1" {
			t.Fatalf("got text %q, calls %v, request id %q", r.Text, r.ToolCalls, me.RequestID)
		}
		if srv.Usage() != (llm.Usage{}) {
			t.Fatalf("a failed stream reported usage %+v", srv.Usage())
		}
	})
	t.Run("CancelMidStream", func(t *testing.T) {
		_, _, m := env(t, 0)
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		st := firstEvent(t, m, ctx)
		cancel()
		r := Drain(st)
		var me *llm.Error
		if !errors.Is(r.Err, context.Canceled) || errors.As(r.Err, &me) {
			t.Fatalf("Err = %v (%T), want context.Canceled itself", r.Err, r.Err)
		}
	})
	t.Run("StreamWithoutFinish", func(t *testing.T) { testUnfinished(t, p) })
	t.Run("ConnectionCut", func(t *testing.T) {
		_, srv, m := env(t, 0)
		st := firstEvent(t, m, context.Background())
		srv.CutConnections()
		wantError(t, Drain(st).Err, "provider_unavailable", true)
	})
	t.Run("Deadlines", func(t *testing.T) { testDeadlines(t, p) })
	t.Run("Unreachable", func(t *testing.T) {
		srv := p.Start(nil)
		url := srv.URL()
		srv.Close()
		m := p.open(t, url, 0, llm.Deadlines{})
		wantError(t, stream(t, m, context.Background(), "hello").Err, "provider_unavailable", true)
	})
	t.Run("InvalidArgumentsVerbatim", func(t *testing.T) {
		_, _, m := env(t, 0)
		r := stream(t, m, context.Background(), "broken")
		if r.Err != nil || len(r.ToolCalls) != 1 || string(r.ToolCalls[0].Arguments) != `{"path": ` {
			t.Fatalf("got %+v", r)
		}
	})
	t.Run("Concurrent", func(t *testing.T) {
		_, srv, m := env(t, 0)
		var wg sync.WaitGroup
		for range 8 {
			wg.Go(func() {
				if r := stream(t, m, context.Background(), "hello"); r.Err != nil || len(r.ToolCalls) != 2 {
					t.Errorf("concurrent stream: %+v", r)
				}
			})
		}
		wg.Wait()
		if n := len(srv.Requests()); n != 8 {
			t.Fatalf("server saw %d requests", n)
		}
	})
}

func testConversation(t *testing.T, brain *scripted.Model, srv *Server, m llm.Model) {
	ctx := context.Background()
	req := &llm.Request{System: "You are a test.", Tools: ConformanceTools,
		Messages: []llm.Message{{Role: llm.RoleUser, Text: "hello"}}}
	r := Run(ctx, m, req)
	if r.Err != nil || r.Text != "Let me look at two files." || r.TextEvents < 2 {
		t.Fatalf("step 1: err %v, text %q in %d events", r.Err, r.Text, r.TextEvents)
	}
	// Text, then the calls (each written in pieces, then whole), then usage.
	phase := func(k llm.EventKind) int {
		switch k {
		case llm.EventText:
			return 0
		case llm.EventToolCallDelta, llm.EventToolCall:
			return 1
		}
		return 2
	}
	for i := 1; i < len(r.Events); i++ {
		if phase(r.Events[i].Kind) < phase(r.Events[i-1].Kind) {
			t.Fatalf("events out of order (text, tool calls, usage): %+v", r.Events)
		}
	}
	want := []llm.ToolCall{
		{ID: "call_1_0_0", Name: "read", Arguments: json.RawMessage(`{"path":"/notes/ünïcödé ✓.md","offset":1,"limit":20}`)},
		{ID: "call_1_0_1", Name: "ls", Arguments: json.RawMessage(`{"path":"/"}`)},
	}
	if !reflect.DeepEqual(r.ToolCalls, want) {
		t.Fatalf("tool calls:\n got %s\nwant %s", fmtCalls(r.ToolCalls), fmtCalls(want))
	}
	// The pieces of each call, joined, are the call, and come before it.
	pieces := make([]string, len(want))
	for _, ev := range r.Events {
		switch ev.Kind {
		case llm.EventToolCallDelta:
			d := ev.Delta
			if d.Index < 0 || d.Index >= len(want) || d.ID != want[d.Index].ID || d.Name != want[d.Index].Name {
				t.Fatalf("a piece of a call %+v, want one of %s", d, fmtCalls(want))
			}
			pieces[d.Index] += d.Args
		case llm.EventToolCall:
			for i, c := range want {
				if c.ID == ev.ToolCall.ID && pieces[i] != string(c.Arguments) {
					t.Fatalf("call %d written in pieces as %q before it came whole as %s", i, pieces[i], c.Arguments)
				}
			}
		}
	}
	usage1 := r.Usage
	if usage1.InputTokens == 0 || usage1.OutputTokens == 0 || srv.Usage() != usage1 {
		t.Fatalf("step 1 usage %+v, server reported %+v", usage1, srv.Usage())
	}

	req.Messages = append(req.Messages,
		llm.Message{Role: llm.RoleAssistant, Text: r.Text, ToolCalls: r.ToolCalls},
		llm.Message{Role: llm.RoleTool, ToolCallID: "call_1_0_0", Text: "# Notes\nline 2"},
		llm.Message{Role: llm.RoleTool, ToolCallID: "call_1_0_1", Text: "notes/\nwelcome.md"},
	)
	r = Run(ctx, m, req)
	if r.Err != nil || r.Text != "Both done: notes/\nwelcome.md" || len(r.ToolCalls) != 0 {
		t.Fatalf("step 2: %+v", r)
	}
	total := llm.Usage{InputTokens: usage1.InputTokens + r.Usage.InputTokens, OutputTokens: usage1.OutputTokens + r.Usage.OutputTokens}
	if r.Usage.InputTokens <= usage1.InputTokens || srv.Usage() != total {
		t.Fatalf("step 2 usage %+v after %+v; server reported %+v in total", r.Usage, usage1, srv.Usage())
	}

	seen := brain.Requests()
	if len(seen) != 2 {
		t.Fatalf("brain saw %d requests", len(seen))
	}
	got := seen[1]
	if got.System != req.System || !reflect.DeepEqual(got.Messages, req.Messages) {
		t.Fatalf("transcript did not round-trip:\n got %+v\nwant %+v", got.Messages, req.Messages)
	}
	if len(got.Tools) != len(req.Tools) {
		t.Fatalf("brain saw %d tools", len(got.Tools))
	}
	for i, tool := range got.Tools {
		w := req.Tools[i]
		if tool.Name != w.Name || tool.Description != w.Description || !jsonEqual(tool.Parameters, w.Parameters) {
			t.Errorf("tool %d: got %s %q %s, want %s %q %s", i, tool.Name, tool.Description, tool.Parameters,
				w.Name, w.Description, w.Parameters)
		}
	}
}

// testConfig: New refuses a config without a model or with negative limits.
func testConfig(t *testing.T, p Provider) {
	for _, c := range []struct {
		cfg  llmwire.Config
		what string
	}{
		{llmwire.Config{}, "a config without a model"},
		{llmwire.Config{Model: "m", MaxTokens: -1}, "negative max tokens"},
		{llmwire.Config{Model: "m", MaxRetries: -1}, "negative retries"},
	} {
		if _, err := p.Open(c.cfg); err == nil {
			t.Errorf("New accepted %s", c.what)
		}
	}
}

// testInvalidSchemas: tool parameters the provider cannot send fail the step
// with invalid_request, and no request reaches the server.
func testInvalidSchemas(t *testing.T, p Provider) {
	if len(p.InvalidSchemas) == 0 {
		t.Fatal("Provider.InvalidSchemas is required")
	}
	srv := p.Start(nil)
	defer srv.Close()
	m, _ := p.Open(llmwire.Config{BaseURL: srv.URL(), Model: "m"})
	for _, params := range p.InvalidSchemas {
		_, err := m.Stream(context.Background(), &llm.Request{
			Messages: []llm.Message{{Role: llm.RoleUser, Text: "x"}},
			Tools:    []llm.ToolSpec{{Name: "t", Parameters: json.RawMessage(params)}},
		})
		var me *llm.Error
		if !errors.As(err, &me) || me.Category != "invalid_request" {
			t.Errorf("parameters %s: err = %v", params, err)
		}
	}
	if n := len(srv.Requests()); n != 0 {
		t.Fatalf("%d requests reached the server", n)
	}
}

// testUnfinished: a stream that ends before the provider finished the step
// fails with a retryable error carrying the request id, and the tool call it
// was in is not emitted.
func testUnfinished(t *testing.T, p Provider) {
	if p.Unfinished == "" {
		t.Fatal("Provider.Unfinished is required")
	}
	url, _ := ServeSSE(t, p.Unfinished)
	r := Ask(context.Background(), p.open(t, url, 0, llm.Deadlines{}), "x")
	var me *llm.Error
	if !errors.As(r.Err, &me) || me.Category != "provider_unavailable" || !me.Retryable || me.RequestID != RawRequestID {
		t.Fatalf("err = %v", r.Err)
	}
	if len(r.ToolCalls) != 0 {
		t.Fatalf("an unfinished tool call was emitted: %+v", r.ToolCalls)
	}
}

func testHTTPErrors(t *testing.T, p Provider, srv *Server, m llm.Model) {
	cases := append([]StatusCase{
		{Status: 429, Category: "rate_limited", Retryable: true},
		{Status: 500, Category: "provider_unavailable", Retryable: true},
		{Status: 502, Category: "provider_unavailable", Retryable: true},
		{Status: 503, Category: "provider_unavailable", Retryable: true},
		{Status: 504, Category: "provider_unavailable", Retryable: true},
		{Status: 401, Category: "auth"},
		{Status: 403, Category: "auth"},
		{Status: 400, Category: "invalid_request"},
		{Status: 404, Category: "invalid_request"},
		{Status: 422, Category: "invalid_request"},
		{Status: 400, Message: p.ContextLengthMessage, Category: "context_length"},
		{Status: 413, Category: "context_length"},
	}, p.Statuses...)
	for _, c := range cases {
		before := len(srv.Requests())
		srv.FailNextWithMessage(1, c.Status, c.Message)
		r := stream(t, m, context.Background(), "hello")
		if len(r.Events) != 0 {
			t.Errorf("status %d: events before the error: %+v", c.Status, r.Events)
		}
		me := wantError(t, r.Err, c.Category, c.Retryable)
		if me.Status != c.Status || me.RequestID != fmt.Sprintf("req_fake_%d", before+1) {
			t.Errorf("status %d: got status %d, request id %q", c.Status, me.Status, me.RequestID)
		}
		if n := len(srv.Requests()); n != before+1 {
			t.Errorf("status %d: server saw %d requests, want one (no SDK retries)", c.Status, n-before)
		}
	}
	if r := stream(t, m, context.Background(), "hello"); r.Err != nil {
		t.Fatalf("after the failures: %v", r.Err)
	}
}

// stream runs one request; an error from Stream itself is reported in Result.Err
// since the llm.Model contract allows either place.
func stream(t *testing.T, m llm.Model, ctx context.Context, text string) Result {
	t.Helper()
	return Run(ctx, m, &llm.Request{Tools: ConformanceTools, Messages: []llm.Message{{Role: llm.RoleUser, Text: text}}})
}

// firstEvent starts the slow turn and returns its stream after the first text;
// the brain waits a minute before the next chunk, so whatever ends the stream
// sooner is what the test did.
func firstEvent(t *testing.T, m llm.Model, ctx context.Context) llm.Stream {
	t.Helper()
	st, err := m.Stream(ctx, &llm.Request{Messages: []llm.Message{{Role: llm.RoleUser, Text: "slow"}}})
	if err != nil {
		t.Fatal(err)
	}
	if !st.Next() || st.Current().Text != "first " {
		t.Fatalf("first event %+v, err %v", st.Current(), st.Err())
	}
	t.Cleanup(func() { st.Close() })
	return st
}

func wantError(t *testing.T, err error, category string, retryable bool) *llm.Error {
	t.Helper()
	var me *llm.Error
	if !errors.As(err, &me) {
		t.Fatalf("err = %v (%T), want *llm.Error %s", err, err, category)
	}
	if me.Category != category || me.Retryable != retryable {
		t.Fatalf("err = %v: category %s retryable %v, want %s %v", err, me.Category, me.Retryable, category, retryable)
	}
	return me
}

func jsonEqual(a, b []byte) bool {
	var x, y any
	return json.Unmarshal(a, &x) == nil && json.Unmarshal(b, &y) == nil && reflect.DeepEqual(x, y)
}

func fmtCalls(calls []llm.ToolCall) string {
	s := ""
	for _, c := range calls {
		s += fmt.Sprintf("[%s %s %s] ", c.ID, c.Name, c.Arguments)
	}
	return s
}
