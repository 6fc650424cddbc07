package llmfake

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/rtcagent/rtcagent/internal/llm"
)

type openAIDialect struct{}

func (openAIDialect) path() string            { return "/v1/chat/completions" }
func (openAIDialect) requestIDHeader() string { return "x-request-id" }

type oaRequest struct {
	Model    string      `json:"model"`
	Messages []oaMessage `json:"messages"`
	Tools    []struct {
		Type     string `json:"type"`
		Function struct {
			Name        string          `json:"name"`
			Description string          `json:"description"`
			Parameters  json.RawMessage `json:"parameters"`
		} `json:"function"`
	} `json:"tools"`
	Stream        bool `json:"stream"`
	StreamOptions struct {
		IncludeUsage bool `json:"include_usage"`
	} `json:"stream_options"`
	MaxTokens           int `json:"max_tokens"`
	MaxCompletionTokens int `json:"max_completion_tokens"`
}

type oaMessage struct {
	Role       string          `json:"role"`
	Content    json.RawMessage `json:"content"`
	ToolCallID string          `json:"tool_call_id"`
	ToolCalls  []struct {
		ID       string `json:"id"`
		Type     string `json:"type"`
		Function struct {
			Name      string `json:"name"`
			Arguments string `json:"arguments"`
		} `json:"function"`
	} `json:"tool_calls"`
}

func (openAIDialect) decode(body []byte) (*llm.Request, bool, bool, error) {
	var in oaRequest
	if err := json.Unmarshal(body, &in); err != nil {
		return nil, false, false, fmt.Errorf("decode request: %w", err)
	}
	req := &llm.Request{MaxTokens: max(in.MaxCompletionTokens, in.MaxTokens)}
	if err := oaCheckToolOrder(in.Messages); err != nil {
		return nil, false, false, err
	}
	var system []string
	for i, m := range in.Messages {
		text, err := oaContent(m.Content)
		if err != nil {
			return nil, false, false, fmt.Errorf("message %d: %w", i, err)
		}
		switch m.Role {
		case "system", "developer":
			system = append(system, text)
		case "user":
			req.Messages = append(req.Messages, llm.Message{Role: llm.RoleUser, Text: text})
		case "assistant":
			msg := llm.Message{Role: llm.RoleAssistant, Text: text}
			for _, tc := range m.ToolCalls {
				msg.ToolCalls = append(msg.ToolCalls, llm.ToolCall{
					ID: tc.ID, Name: tc.Function.Name, Arguments: json.RawMessage(tc.Function.Arguments),
				})
			}
			req.Messages = append(req.Messages, msg)
		case "tool":
			if m.ToolCallID == "" {
				return nil, false, false, fmt.Errorf("message %d: tool message without tool_call_id", i)
			}
			req.Messages = append(req.Messages, llm.Message{Role: llm.RoleTool, Text: text, ToolCallID: m.ToolCallID})
		default:
			return nil, false, false, fmt.Errorf("message %d: unknown role %q", i, m.Role)
		}
	}
	req.System = strings.Join(system, "\n\n")
	for _, t := range in.Tools {
		if t.Type != "function" {
			return nil, false, false, fmt.Errorf("tool %q: unsupported type %q", t.Function.Name, t.Type)
		}
		req.Tools = append(req.Tools, llm.ToolSpec{
			Name: t.Function.Name, Description: t.Function.Description, Parameters: t.Function.Parameters,
		})
	}
	return req, in.Stream, in.StreamOptions.IncludeUsage, nil
}

// oaCheckToolOrder enforces the real API's rule that an assistant message with
// tool calls is followed by one tool message per call before anything else.
func oaCheckToolOrder(msgs []oaMessage) error {
	open := map[string]bool{}
	for i, m := range msgs {
		if m.Role == "tool" {
			if !open[m.ToolCallID] {
				return fmt.Errorf("messages.[%d]: tool message %q does not answer a preceding tool call", i, m.ToolCallID)
			}
			delete(open, m.ToolCallID)
			continue
		}
		if len(open) > 0 {
			return fmt.Errorf("messages.[%d]: tool calls %v have no tool message", i, open)
		}
		for _, tc := range m.ToolCalls {
			open[tc.ID] = true
		}
	}
	if len(open) > 0 {
		return fmt.Errorf("tool calls %v have no tool message", open)
	}
	return nil
}

// oaContent accepts the three shapes of message content: null, a string, or an
// array of text parts.
func oaContent(raw json.RawMessage) (string, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return "", nil
	}
	var s string
	if err := json.Unmarshal(raw, &s); err == nil {
		return s, nil
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if err := json.Unmarshal(raw, &parts); err != nil {
		return "", errors.New("content is neither a string nor an array of parts")
	}
	var b strings.Builder
	for _, p := range parts {
		if p.Type != "text" {
			return "", fmt.Errorf("unsupported content part %q", p.Type)
		}
		b.WriteString(p.Text)
	}
	return b.String(), nil
}

func (openAIDialect) errorBody(status int, message, _ string) any {
	typ, code := "invalid_request_error", any(nil)
	switch {
	case status == http.StatusUnauthorized:
		code = "invalid_api_key"
	case status == http.StatusTooManyRequests:
		typ, code = "requests", "rate_limit_exceeded"
	case status >= 500:
		typ = "server_error"
	}
	return map[string]any{"error": map[string]any{"message": message, "type": typ, "param": nil, "code": code}}
}

// oaStreamError is the error object OpenAI sends in place of a chunk when a
// stream fails after it started.
func oaStreamError(err error) any {
	me := llm.AsError(err)
	typ, code := "server_error", any(nil)
	switch me.Category {
	case "rate_limited":
		typ, code = "requests", "rate_limit_exceeded"
	case "context_length":
		typ, code = "invalid_request_error", "context_length_exceeded"
	case "invalid_request":
		typ = "invalid_request_error"
	case "auth":
		typ, code = "invalid_request_error", "invalid_api_key"
	}
	msg := err.Error()
	if me.Err != nil {
		msg = me.Err.Error()
	}
	return map[string]any{"error": map[string]any{"message": msg, "type": typ, "param": nil, "code": code}}
}

func (openAIDialect) stream(w *sseWriter, st llm.Stream, model string, seq int, includeUsage bool, report func(llm.Usage)) {
	id := fmt.Sprintf("chatcmpl-fake-%d", seq)
	chunk := func(delta map[string]any, finish any) {
		c := map[string]any{
			"id": id, "object": "chat.completion.chunk", "created": 1700000000, "model": model,
			"choices": []any{map[string]any{"index": 0, "delta": delta, "logprobs": nil, "finish_reason": finish}},
		}
		if includeUsage {
			c["usage"] = nil
		}
		w.event("", c)
	}
	chunk(map[string]any{"role": "assistant", "content": ""}, nil)
	var usage llm.Usage
	calls := 0
	for w.err == nil && st.Next() {
		ev := st.Current()
		switch ev.Kind {
		case llm.EventText:
			chunk(map[string]any{"content": ev.Text}, nil)
		case llm.EventToolCall:
			idx := calls
			calls++
			chunk(map[string]any{"tool_calls": []any{map[string]any{
				"index": idx, "id": ev.ToolCall.ID, "type": "function",
				"function": map[string]any{"name": ev.ToolCall.Name, "arguments": ""},
			}}}, nil)
			for _, frag := range fragments(string(ev.ToolCall.Arguments)) {
				chunk(map[string]any{"tool_calls": []any{map[string]any{
					"index": idx, "function": map[string]any{"arguments": frag},
				}}}, nil)
			}
		case llm.EventUsage:
			mergeUsage(&usage, ev.Usage)
		}
	}
	if err := streamFailed(st); err != nil {
		w.event("", oaStreamError(err))
		return
	}
	if w.err != nil || st.Err() != nil {
		return
	}
	finish := "stop"
	if calls > 0 {
		finish = "tool_calls"
	}
	chunk(map[string]any{}, finish)
	if !includeUsage {
		w.raw("", "[DONE]")
		return
	}
	report(usage)
	w.event("", map[string]any{
		"id": id, "object": "chat.completion.chunk", "created": 1700000000, "model": model, "choices": []any{},
		"usage": map[string]any{
			"prompt_tokens": usage.InputTokens, "completion_tokens": usage.OutputTokens,
			"total_tokens": usage.InputTokens + usage.OutputTokens,
		},
	})
	w.raw("", "[DONE]")
}
