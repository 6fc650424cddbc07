package anthropic

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/rtcagent/rtcagent/internal/llm"
	"github.com/rtcagent/rtcagent/internal/testkit/llmfake"
)

// open is New for the shared tests.
func open(cfg Config) (llm.Model, error) { return New(cfg) }

func TestConformance(t *testing.T) {
	llmfake.Conformance(t, llmfake.Provider{
		Start:                llmfake.NewAnthropic,
		Open:                 open,
		ContextLengthMessage: "prompt is too long: 210000 tokens > 200000 maximum",
		Statuses: []llmfake.StatusCase{
			{Status: 529, Category: "provider_unavailable", Retryable: true},
		},
		InvalidSchemas: []string{`{"type": "string"}`, `not json`, `{"required": [1]}`},
		Unfinished: llmfake.Events(messageStart[0], messageStart[1],
			"content_block_start", `{"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"t1","name":"ls","input":{}}}`,
			"content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"{\"pa"}}`),
	})
}

func TestNewDefaults(t *testing.T) {
	m, err := New(Config{Model: "claude-x"})
	if err != nil || m.Name() != "anthropic:claude-x" || m.cfg.BaseURL != DefaultBaseURL || m.cfg.MaxTokens != DefaultMaxTokens {
		t.Fatalf("New = %+v, %v", m, err)
	}
}

// messagesBody is the part of a Messages request the tests look at.
type messagesBody struct {
	Model     string `json:"model"`
	MaxTokens int    `json:"max_tokens"`
	Stream    bool   `json:"stream"`
	System    []struct {
		Type, Text string
	} `json:"system"`
	Messages []struct {
		Role    string `json:"role"`
		Content []struct {
			Type      string          `json:"type"`
			Text      string          `json:"text"`
			ID        string          `json:"id"`
			Input     json.RawMessage `json:"input"`
			ToolUseID string          `json:"tool_use_id"`
			Content   json.RawMessage `json:"content"`
		} `json:"content"`
	} `json:"messages"`
	Tools []struct {
		Name        string         `json:"name"`
		InputSchema map[string]any `json:"input_schema"`
	} `json:"tools"`
}

func TestTranscriptMapping(t *testing.T) {
	brain, srv := llmfake.StartScript(t, llmfake.NewAnthropic, llmfake.ConformanceScript)
	m, err := New(Config{BaseURL: srv.URL(), Model: "claude-test"})
	if err != nil {
		t.Fatal(err)
	}
	req := &llm.Request{System: "sys", Tools: llmfake.ConformanceTools, Messages: []llm.Message{
		{Role: llm.RoleUser, Text: "hello"},
		{Role: llm.RoleAssistant, Text: "Looking.", ToolCalls: []llm.ToolCall{
			{ID: "c1", Name: "read", Arguments: json.RawMessage(` {"path": "/a"} `)},
			{ID: "c2", Name: "read", Arguments: json.RawMessage(`{"path": `)},
			{ID: "c3", Name: "ls", Arguments: json.RawMessage(`[1]`)},
			{ID: "c4", Name: "ls"},
		}},
		{Role: llm.RoleTool, ToolCallID: "c1", Text: "A"},
		{Role: llm.RoleUser, Text: "stop that"}, // typed while the tools ran
		{Role: llm.RoleTool, ToolCallID: "c2", Text: ""},
		{Role: llm.RoleTool, ToolCallID: "c3", Text: "C"},
		{Role: llm.RoleTool, ToolCallID: "c4", Text: "D"},
		{Role: llm.RoleAssistant, Text: ""},
		{Role: llm.RoleUser, Text: "again"},
	}}
	// The fake rejects what the real API rejects (roles not alternating, tool
	// results not right after their tool_use, empty text), so success is the
	// first assertion.
	if r := llmfake.Drain(llmfake.MustStream(t, m, req)); r.Err != nil {
		t.Fatal(r.Err)
	}
	var b messagesBody
	if err := json.Unmarshal(srv.Requests()[0], &b); err != nil {
		t.Fatal(err)
	}
	if b.Model != "claude-test" || b.MaxTokens != DefaultMaxTokens || !b.Stream || len(b.System) != 1 || b.System[0].Text != "sys" {
		t.Fatalf("request: %+v", b)
	}
	var shape []string
	for _, msg := range b.Messages {
		var types []string
		for _, c := range msg.Content {
			types = append(types, c.Type)
		}
		shape = append(shape, msg.Role+":"+strings.Join(types, ","))
	}
	want := []string{
		"user:text",
		"assistant:text,tool_use,tool_use,tool_use,tool_use",
		"user:tool_result,tool_result,tool_result,tool_result,text,text",
	}
	if fmt.Sprint(shape) != fmt.Sprint(want) {
		t.Fatalf("turns %v, want %v", shape, want)
	}
	inputs := []string{}
	for _, c := range b.Messages[1].Content[1:] {
		inputs = append(inputs, string(c.Input))
	}
	if fmt.Sprint(inputs) != `[{"path":"/a"} {} {} {}]` {
		t.Fatalf("tool_use inputs %v", inputs)
	}
	if results := b.Messages[2].Content; results[1].ToolUseID != "c2" || len(results[1].Content) != 0 {
		t.Fatalf("empty tool result sent as %+v", results[1])
	}
	schema := b.Tools[0].InputSchema
	if schema["type"] != "object" || schema["additionalProperties"] != false || fmt.Sprint(schema["required"]) != "[path]" {
		t.Fatalf("input_schema %v", schema)
	}

	// The brain got the transcript back as llm messages.
	got := brain.Requests()[0].Messages
	var roles []string
	for _, msg := range got {
		roles = append(roles, string(msg.Role))
	}
	if fmt.Sprint(roles) != "[user assistant tool tool tool tool user]" || got[6].Text != "stop that\n\nagain" {
		t.Fatalf("brain saw %v, last %q", roles, got[len(got)-1].Text)
	}

	req.MaxTokens = 99
	llmfake.Drain(llmfake.MustStream(t, m, req))
	if err := json.Unmarshal(srv.Requests()[1], &b); err != nil || b.MaxTokens != 99 {
		t.Fatalf("max_tokens = %d (%v), want the request's 99", b.MaxTokens, err)
	}
}

func TestEmptyToolInput(t *testing.T) {
	_, srv := llmfake.StartScript(t, llmfake.NewAnthropic, `{"name": "e", "turns": [{"steps": [
	  {"tool_calls": [{"name": "ls", "raw_arguments": ""}, {"name": "ls", "arguments": {}}]}]}]}`)
	m, _ := New(Config{BaseURL: srv.URL(), Model: "m"})
	r := llmfake.Ask(context.Background(), m, "x")
	if r.Err != nil || len(r.ToolCalls) != 2 || string(r.ToolCalls[0].Arguments) != "{}" || string(r.ToolCalls[1].Arguments) != "{}" {
		t.Fatalf("got %+v", r)
	}
}
