package llmfake

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/rtcagent/rtcagent/internal/llm"
)

type anthropicDialect struct{}

func (anthropicDialect) path() string            { return "/v1/messages" }
func (anthropicDialect) requestIDHeader() string { return "request-id" }

type anRequest struct {
	Model     string          `json:"model"`
	MaxTokens int             `json:"max_tokens"`
	System    json.RawMessage `json:"system"`
	Messages  []struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	} `json:"messages"`
	Tools []struct {
		Name        string          `json:"name"`
		Description string          `json:"description"`
		InputSchema json.RawMessage `json:"input_schema"`
	} `json:"tools"`
	Stream bool `json:"stream"`
}

type anBlock struct {
	Type      string          `json:"type"`
	Text      string          `json:"text"`
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Input     json.RawMessage `json:"input"`
	ToolUseID string          `json:"tool_use_id"`
	Content   json.RawMessage `json:"content"`
}

func (anthropicDialect) decode(body []byte) (*llm.Request, bool, bool, error) {
	var in anRequest
	if err := json.Unmarshal(body, &in); err != nil {
		return nil, false, false, fmt.Errorf("decode request: %w", err)
	}
	if in.MaxTokens <= 0 {
		return nil, false, false, errors.New("max_tokens: field required")
	}
	system, err := anText(in.System)
	if err != nil {
		return nil, false, false, fmt.Errorf("system: %w", err)
	}
	req := &llm.Request{System: system, MaxTokens: in.MaxTokens}
	var pending []string // tool_use ids the next message must answer
	for i, m := range in.Messages {
		blocks, err := anBlocks(m.Content)
		if err != nil {
			return nil, false, false, fmt.Errorf("messages.%d: %w", i, err)
		}
		if err := anCheckOrder(i, m.Role, blocks, &pending); err != nil {
			return nil, false, false, err
		}
		var msgs []llm.Message
		switch m.Role {
		case "user":
			msgs, err = anUser(blocks)
		case "assistant":
			msgs, err = anAssistant(blocks)
		default:
			err = fmt.Errorf("unknown role %q", m.Role)
		}
		if err != nil {
			return nil, false, false, fmt.Errorf("messages.%d: %w", i, err)
		}
		req.Messages = append(req.Messages, msgs...)
	}
	if len(pending) > 0 {
		return nil, false, false, fmt.Errorf("tool_use ids without tool_result: %v", pending)
	}
	for _, t := range in.Tools {
		req.Tools = append(req.Tools, llm.ToolSpec{Name: t.Name, Description: t.Description, Parameters: t.InputSchema})
	}
	return req, in.Stream, true, nil
}

// anCheckOrder enforces the rules of the real API that a transcript mapping can
// break: roles alternate starting with user, and every tool_use is answered by a
// tool_result in the very next message.
func anCheckOrder(i int, role string, blocks []anBlock, pending *[]string) error {
	if want := []string{"user", "assistant"}[i%2]; role != want {
		return fmt.Errorf("messages.%d: roles must alternate starting with user; got %q", i, role)
	}
	answered := map[string]bool{}
	var uses []string
	for _, b := range blocks {
		switch b.Type {
		case "tool_result":
			answered[b.ToolUseID] = true
		case "tool_use":
			uses = append(uses, b.ID)
		}
	}
	for _, id := range *pending {
		if !answered[id] {
			return fmt.Errorf("messages.%d: tool_use %s has no tool_result immediately after it", i, id)
		}
	}
	if len(*pending) == 0 && len(answered) > 0 {
		return fmt.Errorf("messages.%d: tool_result without a tool_use before it", i)
	}
	*pending = uses
	return nil
}

// anUser splits a user message into tool messages and user text, keeping their
// order, so a merged turn decodes back into the transcript it came from.
func anUser(blocks []anBlock) ([]llm.Message, error) {
	var out []llm.Message
	var text []string
	flush := func() {
		if len(text) > 0 {
			out = append(out, llm.Message{Role: llm.RoleUser, Text: strings.Join(text, "\n\n")})
			text = nil
		}
	}
	for _, b := range blocks {
		switch b.Type {
		case "text":
			text = append(text, b.Text)
		case "tool_result":
			flush()
			result, err := anText(b.Content)
			if err != nil {
				return nil, fmt.Errorf("tool_result %s: %w", b.ToolUseID, err)
			}
			out = append(out, llm.Message{Role: llm.RoleTool, ToolCallID: b.ToolUseID, Text: result})
		default:
			return nil, fmt.Errorf("unsupported user block %q", b.Type)
		}
	}
	flush()
	return out, nil
}

func anAssistant(blocks []anBlock) ([]llm.Message, error) {
	msg := llm.Message{Role: llm.RoleAssistant}
	for _, b := range blocks {
		switch b.Type {
		case "text":
			msg.Text += b.Text
		case "tool_use":
			var buf bytes.Buffer
			if err := json.Compact(&buf, b.Input); err != nil || !bytes.HasPrefix(buf.Bytes(), []byte("{")) {
				return nil, fmt.Errorf("tool_use %s: input must be a JSON object", b.ID)
			}
			msg.ToolCalls = append(msg.ToolCalls, llm.ToolCall{ID: b.ID, Name: b.Name, Arguments: buf.Bytes()})
		default:
			return nil, fmt.Errorf("unsupported assistant block %q", b.Type)
		}
	}
	return []llm.Message{msg}, nil
}

func anBlocks(raw json.RawMessage) ([]anBlock, error) {
	var s string
	if err := json.Unmarshal(raw, &s); err == nil {
		return []anBlock{{Type: "text", Text: s}}, nil
	}
	var blocks []anBlock
	if err := json.Unmarshal(raw, &blocks); err != nil {
		return nil, errors.New("content is neither a string nor an array of blocks")
	}
	for _, b := range blocks {
		// The real API rejects empty text blocks; so does the fake, to catch
		// transcript mappings that would fail in production.
		if b.Type == "text" && b.Text == "" {
			return nil, errors.New("text content blocks must be non-empty")
		}
	}
	return blocks, nil
}

// anText reads a string or an array of text blocks (system prompts and
// tool_result content).
func anText(raw json.RawMessage) (string, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return "", nil
	}
	blocks, err := anBlocks(raw)
	if err != nil {
		return "", err
	}
	var parts []string
	for _, b := range blocks {
		if b.Type != "text" {
			return "", fmt.Errorf("unsupported block %q", b.Type)
		}
		parts = append(parts, b.Text)
	}
	return strings.Join(parts, "\n\n"), nil
}

func anErrorType(status int) string {
	switch {
	case status == http.StatusBadRequest:
		return "invalid_request_error"
	case status == http.StatusUnauthorized:
		return "authentication_error"
	case status == http.StatusForbidden:
		return "permission_error"
	case status == http.StatusNotFound:
		return "not_found_error"
	case status == http.StatusRequestEntityTooLarge:
		return "request_too_large"
	case status == http.StatusTooManyRequests:
		return "rate_limit_error"
	case status == 529:
		return "overloaded_error"
	case status >= 500:
		return "api_error"
	}
	return "invalid_request_error"
}

func (anthropicDialect) errorBody(status int, message, requestID string) any {
	return map[string]any{
		"type":       "error",
		"error":      map[string]any{"type": anErrorType(status), "message": message},
		"request_id": requestID,
	}
}

func anStreamError(err error) any {
	me := llm.AsError(err)
	typ := "api_error"
	switch me.Category {
	case "provider_unavailable":
		typ = "overloaded_error"
	case "rate_limited":
		typ = "rate_limit_error"
	case "auth":
		typ = "authentication_error"
	case "invalid_request", "context_length":
		typ = "invalid_request_error"
	}
	msg := err.Error()
	if me.Err != nil {
		msg = me.Err.Error()
	}
	return map[string]any{"type": "error", "error": map[string]any{"type": typ, "message": msg}}
}

func (anthropicDialect) stream(w *sseWriter, st llm.Stream, model string, seq int, _ bool, report func(llm.Usage)) {
	// The brain reports usage at its end, so message_start cannot know the input
	// tokens yet; message_delta carries both, as the current API does.
	w.event("message_start", map[string]any{"type": "message_start", "message": map[string]any{
		"id": fmt.Sprintf("msg_fake_%d", seq), "type": "message", "role": "assistant", "model": model,
		"content": []any{}, "stop_reason": nil, "stop_sequence": nil,
		"usage": map[string]any{"input_tokens": 0, "output_tokens": 0},
	}})
	w.event("ping", map[string]any{"type": "ping"})
	var usage llm.Usage
	index, textOpen, calls := 0, false, 0
	closeText := func() {
		if textOpen {
			w.event("content_block_stop", map[string]any{"type": "content_block_stop", "index": index})
			index++
			textOpen = false
		}
	}
	for w.err == nil && st.Next() {
		ev := st.Current()
		switch ev.Kind {
		case llm.EventText:
			if !textOpen {
				w.event("content_block_start", map[string]any{"type": "content_block_start", "index": index,
					"content_block": map[string]any{"type": "text", "text": ""}})
				textOpen = true
			}
			w.event("content_block_delta", map[string]any{"type": "content_block_delta", "index": index,
				"delta": map[string]any{"type": "text_delta", "text": ev.Text}})
		case llm.EventToolCall:
			closeText()
			calls++
			w.event("content_block_start", map[string]any{"type": "content_block_start", "index": index,
				"content_block": map[string]any{"type": "tool_use", "id": ev.ToolCall.ID, "name": ev.ToolCall.Name, "input": map[string]any{}}})
			for _, frag := range fragments(string(ev.ToolCall.Arguments)) {
				w.event("content_block_delta", map[string]any{"type": "content_block_delta", "index": index,
					"delta": map[string]any{"type": "input_json_delta", "partial_json": frag}})
			}
			w.event("content_block_stop", map[string]any{"type": "content_block_stop", "index": index})
			index++
		case llm.EventUsage:
			mergeUsage(&usage, ev.Usage)
		}
	}
	if err := streamFailed(st); err != nil {
		w.event("error", anStreamError(err))
		return
	}
	if w.err != nil || st.Err() != nil {
		return
	}
	closeText()
	stop := "end_turn"
	if calls > 0 {
		stop = "tool_use"
	}
	report(usage)
	w.event("message_delta", map[string]any{"type": "message_delta",
		"delta": map[string]any{"stop_reason": stop, "stop_sequence": nil},
		"usage": map[string]any{"input_tokens": usage.InputTokens, "output_tokens": usage.OutputTokens}})
	w.event("message_stop", map[string]any{"type": "message_stop"})
}
