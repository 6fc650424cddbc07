package bench

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/rtcagent/rtcagent/internal/agent"
	"github.com/rtcagent/rtcagent/internal/llm"
	"github.com/rtcagent/rtcagent/internal/protocol"
)

// The stateless baseline speaks the shapes of the Vercel AI SDK's chat: the
// browser keeps the conversation as UI messages and POSTs all of them on every
// request; an assistant message holds its steps as parts ("step-start", "text",
// and one "tool-<name>" part per call that carries the call's input and, once
// the browser ran it, its output).

// uiMessage is one UI message as useChat keeps and sends it.
type uiMessage struct {
	ID    string   `json:"id"`
	Role  string   `json:"role"` // "user" or "assistant"
	Parts []uiPart `json:"parts"`
}

// uiPart is one part of a UI message; which fields are set depends on Type.
type uiPart struct {
	Type       string          `json:"type"` // "text", "step-start", "tool-<name>"
	Text       string          `json:"text,omitempty"`
	ToolCallID string          `json:"toolCallId,omitempty"`
	State      string          `json:"state,omitempty"` // "input-available", "output-available", "output-error"
	Input      json.RawMessage `json:"input,omitempty"`
	Output     json.RawMessage `json:"output,omitempty"`
	ErrorText  string          `json:"errorText,omitempty"`
}

// chatRequest is the body useChat POSTs to the chat endpoint.
type chatRequest struct {
	ID        string      `json:"id"`
	Messages  []uiMessage `json:"messages"`
	Trigger   string      `json:"trigger"` // "submit-message"
	MessageID string      `json:"messageId,omitempty"`
}

// chunk is one event of the streamed response (one SSE "data:" line).
type chunk struct {
	Type       string          `json:"type"`
	MessageID  string          `json:"messageId,omitempty"`
	ID         string          `json:"id,omitempty"`
	Delta      string          `json:"delta,omitempty"`
	ToolCallID string          `json:"toolCallId,omitempty"`
	ToolName   string          `json:"toolName,omitempty"`
	Input      json.RawMessage `json:"input,omitempty"`
	ErrorText  string          `json:"errorText,omitempty"`
}

const toolPrefix = "tool-"

// toModel converts UI messages to the model's transcript, as the AI SDK's
// convertToModelMessages does: each step of an assistant message becomes one
// assistant message (its text and calls) followed by the calls' results.
func toModel(msgs []uiMessage) ([]llm.Message, error) {
	var out []llm.Message
	for _, um := range msgs {
		switch um.Role {
		case "user":
			var text strings.Builder
			for _, p := range um.Parts {
				if p.Type == "text" {
					text.WriteString(p.Text)
				}
			}
			out = append(out, llm.Message{Role: llm.RoleUser, Text: text.String()})
		case "assistant":
			var step []uiPart
			flush := func() {
				out = append(out, assistantStep(step)...)
				step = nil
			}
			for _, p := range um.Parts {
				if p.Type == "step-start" && len(step) > 0 {
					flush()
				}
				step = append(step, p)
			}
			flush()
		default:
			return nil, fmt.Errorf("message %s: role %q", um.ID, um.Role)
		}
	}
	return out, nil
}

// assistantStep converts the parts of one step.
func assistantStep(parts []uiPart) []llm.Message {
	am := llm.Message{Role: llm.RoleAssistant}
	var results []llm.Message
	for _, p := range parts {
		switch {
		case p.Type == "text":
			am.Text += p.Text
		case strings.HasPrefix(p.Type, toolPrefix):
			am.ToolCalls = append(am.ToolCalls, llm.ToolCall{ID: p.ToolCallID, Name: strings.TrimPrefix(p.Type, toolPrefix), Arguments: p.Input})
			// What the model sees of a result is what RTC Agent gives it.
			r := &protocol.RTC{Status: protocol.RTCCompleted, Output: p.Output}
			switch p.State {
			case "output-error":
				r.Status, r.Error = protocol.RTCFailed, p.ErrorText
			case "output-available":
			default:
				r = nil // no result: "not executed", as RTC Agent says
			}
			results = append(results, llm.Message{Role: llm.RoleTool, ToolCallID: p.ToolCallID, Text: agent.ResultText(r, 0)})
		}
	}
	if am.Text == "" && len(am.ToolCalls) == 0 {
		return nil
	}
	return append([]llm.Message{am}, results...)
}

// fromModel converts a model transcript to UI messages, the inverse of toModel:
// the baseline starts from the very messages the RTC Agent session holds.
// Tool results become string outputs, which toModel gives back unchanged.
func fromModel(msgs []llm.Message) []uiMessage {
	var out []uiMessage
	where := map[string]*uiPart{} // call id → its part, for the result that follows
	for i, m := range msgs {
		switch m.Role {
		case llm.RoleUser:
			out = append(out, uiMessage{ID: fmt.Sprintf("m%d", i), Role: "user", Parts: []uiPart{{Type: "text", Text: m.Text}}})
		case llm.RoleAssistant:
			if len(out) == 0 || out[len(out)-1].Role != "assistant" {
				out = append(out, uiMessage{ID: fmt.Sprintf("m%d", i), Role: "assistant"})
			}
			am := &out[len(out)-1]
			am.Parts = append(am.Parts, uiPart{Type: "step-start"})
			if m.Text != "" {
				am.Parts = append(am.Parts, uiPart{Type: "text", Text: m.Text})
			}
			for _, tc := range m.ToolCalls {
				am.Parts = append(am.Parts, uiPart{Type: toolPrefix + tc.Name, ToolCallID: tc.ID, State: "input-available", Input: tc.Arguments})
			}
			clear(where)
			for k := range am.Parts {
				if p := &am.Parts[k]; strings.HasPrefix(p.Type, toolPrefix) {
					where[p.ToolCallID] = p
				}
			}
		case llm.RoleTool:
			if p := where[m.ToolCallID]; p != nil {
				p.State = "output-available"
				p.Output, _ = json.Marshal(m.Text)
			}
		}
	}
	return out
}
