package llm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
)

// Role of a message in a model request.
type Role string

const (
	RoleUser      Role = "user"
	RoleAssistant Role = "assistant"
	// RoleTool carries the result of one tool call (ToolCallID names it).
	RoleTool Role = "tool"
)

// ToolSpec describes one tool offered to the model.
type ToolSpec struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Parameters  json.RawMessage `json:"parameters"` // JSON Schema object
}

// ToolCall is one tool invocation requested by the model.
type ToolCall struct {
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"` // raw JSON text as the model produced it; may be invalid JSON
	// Cut, when set, says for the model why the arguments it produced were over
	// a limit: Arguments then holds what was kept of them (protocol.CutArgs) and
	// the call is not run. Never sent to a provider.
	Cut string `json:"-"`
}

// Message is one entry of the transcript sent to the model.
type Message struct {
	Role       Role       `json:"role"`
	Text       string     `json:"text,omitempty"`
	ToolCalls  []ToolCall `json:"tool_calls,omitempty"`   // assistant only
	ToolCallID string     `json:"tool_call_id,omitempty"` // tool only
}

// Request is one model step: the whole transcript plus the tools on offer.
type Request struct {
	System    string
	Messages  []Message
	Tools     []ToolSpec
	MaxTokens int // 0 = provider default
}

// Usage is the provider's token accounting for one step.
type Usage struct {
	InputTokens  int64 `json:"input_tokens"`
	OutputTokens int64 `json:"output_tokens"`
}

// EventKind tells which field of an Event is set.
type EventKind int

const (
	// EventText carries a text delta in Event.Text.
	EventText EventKind = iota + 1
	// EventToolCall carries one complete tool call in Event.ToolCall.
	EventToolCall
	// EventUsage carries token usage in Event.Usage (may come more than once; the
	// last one wins for each field that is non-zero).
	EventUsage
	// EventToolCallDelta carries a piece of a tool call while the model
	// writes it, in Event.Delta; the whole call follows as an EventToolCall.
	EventToolCallDelta
)

// Event is one item of a model stream.
type Event struct {
	Kind     EventKind
	Text     string
	ToolCall ToolCall
	Usage    Usage
	Delta    ToolCallDelta
}

// ToolCallDelta is a piece of a tool call as the model streams it: what is
// known of the call so far and the next piece of its arguments.
type ToolCallDelta struct {
	Index int    // the call's place among the step's calls, from 0
	ID    string // the model's id of the call, once it said it
	Name  string // the tool's name, once the model said it
	Args  string // the next piece of the arguments' JSON text (may be empty)
}

// Stream yields the events of one model step in order. Next returns false at the
// end of the stream or on error; Err tells which. Close releases the connection
// and may be called at any time, also before the end.
type Stream interface {
	Next() bool
	Current() Event
	Err() error
	Close() error
}

// Model is a language model that streams one step at a time.
type Model interface {
	// Name identifies the model for logs and message metadata, e.g. "openai:gpt-4o".
	Name() string
	// Stream starts one step. Errors before the first event may be returned here or
	// from the stream's Err.
	Stream(ctx context.Context, req *Request) (Stream, error)
}

// Error is a model failure with a category the engine can act on.
type Error struct {
	Category  string // one of the Category constants
	Retryable bool
	Status    int    // HTTP status when known
	RequestID string // provider request id when known
	Err       error
}

func (e *Error) Error() string {
	if e.RequestID != "" {
		return fmt.Sprintf("model %s (status %d, request %s): %v", e.Category, e.Status, e.RequestID, e.Err)
	}
	return fmt.Sprintf("model %s (status %d): %v", e.Category, e.Status, e.Err)
}

func (e *Error) Unwrap() error { return e.Err }

// AsError returns err as an *Error, wrapping unknown errors as non-retryable "unknown".
func AsError(err error) *Error {
	var me *Error
	if errors.As(err, &me) {
		return me
	}
	return &Error{Category: CategoryUnknown, Err: err}
}
