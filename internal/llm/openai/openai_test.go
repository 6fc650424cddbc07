package openai

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/rtcagent/rtcagent/internal/llm"
	"github.com/rtcagent/rtcagent/internal/testkit/llmfake"
)

// open is New for the shared tests.
func open(cfg Config) (llm.Model, error) { return New(cfg) }

func TestConformance(t *testing.T) {
	llmfake.Conformance(t, llmfake.Provider{
		Start:                llmfake.NewOpenAI,
		Open:                 open,
		ContextLengthMessage: "This model's maximum context length is 8192 tokens. However, your messages resulted in 9000 tokens.",
		InvalidSchemas:       []string{`[1,2]`, `not json`},
		Unfinished: llmfake.Data(`{"id":"c1","choices":[{"index":0,"delta":{"content":"cut"}}]}`,
			`{"id":"c1","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"a","function":{"name":"ls","arguments":"{"}}]}}]}`),
	})
}

func TestNewDefaults(t *testing.T) {
	m, err := New(Config{Model: "gpt-x"})
	if err != nil || m.Name() != "openai:gpt-x" || m.cfg.BaseURL != DefaultBaseURL {
		t.Fatalf("New = %v, %v", m, err)
	}
}

func TestRequestBody(t *testing.T) {
	brain, srv := llmfake.StartScript(t, llmfake.NewOpenAI, llmfake.ConformanceScript)
	m, err := New(Config{BaseURL: srv.URL(), Model: "gpt-test", MaxTokens: 77})
	if err != nil {
		t.Fatal(err)
	}
	req := &llm.Request{System: "sys", Tools: llmfake.ConformanceTools, Messages: []llm.Message{
		{Role: llm.RoleUser, Text: "hello"},
		{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{
			{ID: "c1", Name: "read", Arguments: json.RawMessage(`{"path": `)},
			{ID: "c2", Name: "ls"},
		}},
		{Role: llm.RoleTool, ToolCallID: "c1", Text: ""},
		{Role: llm.RoleTool, ToolCallID: "c2", Text: "a.txt"},
		{Role: llm.RoleAssistant, Text: ""},
		{Role: llm.RoleUser, Text: "again"},
	}}
	for _, maxTokens := range []int{0, 123} {
		req.MaxTokens = maxTokens
		if r := llmfake.Drain(llmfake.MustStream(t, m, req)); r.Err != nil {
			t.Fatal(r.Err)
		}
	}
	var bodies []chatBody
	for _, raw := range srv.Requests() {
		var b chatBody
		if err := json.Unmarshal(raw, &b); err != nil {
			t.Fatal(err)
		}
		bodies = append(bodies, b)
	}
	if len(bodies) != 2 || bodies[0].MaxCompletionTokens != 77 || bodies[1].MaxCompletionTokens != 123 {
		t.Fatalf("max_completion_tokens: %+v", bodies)
	}
	b := bodies[0]
	if b.Model != "gpt-test" || !b.Stream || !b.StreamOptions.IncludeUsage || len(b.Tools) != 2 ||
		b.Tools[0].Type != "function" || b.Tools[0].Function.Name != "read" || b.Tools[0].Function.Parameters["type"] != "object" {
		t.Fatalf("request: %+v", b)
	}
	var roles []string
	for _, msg := range b.Messages {
		roles = append(roles, msg["role"].(string))
	}
	if fmt.Sprint(roles) != "[system user assistant tool tool assistant user]" {
		t.Fatalf("roles %v", roles)
	}
	if _, has := b.Messages[2]["content"]; has {
		t.Errorf("assistant message with only tool calls has content %v", b.Messages[2]["content"])
	}
	if c, has := b.Messages[5]["content"]; !has || c != "" {
		t.Errorf("empty assistant message content = %v, want \"\"", c)
	}
	if c := b.Messages[3]["content"]; c != "" {
		t.Errorf("empty tool result content = %v", c)
	}
	// Stored arguments go back verbatim, even invalid ones; empty ones as {}.
	got := brain.Requests()[0].Messages[1].ToolCalls
	if string(got[0].Arguments) != `{"path": ` || string(got[1].Arguments) != `{}` {
		t.Fatalf("arguments sent back: %s, %s", got[0].Arguments, got[1].Arguments)
	}
}

// chatBody is the part of a Chat Completions request the tests look at.
type chatBody struct {
	Model         string `json:"model"`
	Stream        bool   `json:"stream"`
	StreamOptions struct {
		IncludeUsage bool `json:"include_usage"`
	} `json:"stream_options"`
	MaxCompletionTokens int              `json:"max_completion_tokens"`
	Messages            []map[string]any `json:"messages"`
	Tools               []struct {
		Type     string `json:"type"`
		Function struct {
			Name       string         `json:"name"`
			Parameters map[string]any `json:"parameters"`
		} `json:"function"`
	} `json:"tools"`
}
