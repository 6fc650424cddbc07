package tools

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/rtcagent/rtcagent/internal/llm"
	"github.com/rtcagent/rtcagent/internal/protocol"
)

// ServerResult is the outcome of a call the server executed, in the shape of an
// RTC's result.
type ServerResult struct {
	OK     bool
	Output json.RawMessage
	// Structured is the tool's structured result (a JSON object), for its
	// view; nil when it gave none.
	Structured json.RawMessage
	Error      string
}

// Question is a tool's server's question to the person during a call (an MCP
// elicitation): a form to fill, with the JSON Schema of the answer, or a link
// to open (URL).
type Question struct {
	Server  string // the server's name in the configuration
	Message string
	Schema  json.RawMessage
	// Order is the order the server wrote the schema's properties in, when
	// known (a decoded schema has none).
	Order []string
	URL   string
}

// Asker puts a question of a tool's server to the person and returns the
// answer: "accept" (with content matching the schema), "decline" or "cancel".
type Asker func(ctx context.Context, q Question) (ElicitAnswer, error)

// Hooks receive what a tool's server sends back during one call: questions for
// the person (Ask; nil declines them), requests to use the model (Sample; nil
// refuses them) and progress (Progress; nil ignores it).
// Progress is called on the connection's reader with values already bounded
// (see protocol.RTCProgress): it must not block, and it is never called after
// Run returned.
//
// Task is told the id of the task a call became (an MCP tool run as a task),
// before the call waits for it; a call whose Task fails is not waited for
// (its task is cancelled).
type Hooks struct {
	Ask      Asker
	Sample   Sampler
	Progress func(protocol.RTCProgress)
	Task     func(id string) error
}

// ErrTaskGone is ResumeTask's error when the tool's server no longer knows
// the task (it restarted, or the session the task belonged to ended): the
// call may or may not have run, as a call cut off by a restart.
var ErrTaskGone = errors.New("the MCP server no longer knows the task")

// ServerTools are the tools the server executes itself (those of MCP servers).
type ServerTools interface {
	// Offered lists the tools to offer the model now.
	Offered() []Tool
	// Run executes one call once. An error means no answer came (the call may or
	// may not have run). h receives the questions (elicitations) and progress
	// the tool's server sends during the call.
	Run(ctx context.Context, name string, args json.RawMessage, h Hooks) (ServerResult, error)
	// Rerunnable reports whether running a call of the tool again is harmless
	// (annotated read-only or idempotent). It waits, until ctx ends, for the
	// tool's server to list its tools once: a server slow to start is not a
	// reason to give up a call that may run again.
	Rerunnable(ctx context.Context, name string) (bool, error)
	// ResumeTask waits for the result of the task a call of the tool became
	// (Hooks.Task), made by this process or an earlier one; it runs nothing
	// again. A task its server no longer knows is ErrTaskGone.
	ResumeTask(ctx context.Context, name, id string, h Hooks) (ServerResult, error)
	// CancelTask asks the tool's server to cancel the task.
	CancelTask(ctx context.Context, name, id string) error
}

// ViewTools are the tools a tool's view (MCP Apps) may call: those of its own
// MCP server that the server offers to views.
type ViewTools interface {
	// ViewTool returns the tool named name ("<server>__<tool>") when a view
	// may call it.
	ViewTool(name string) (Tool, bool)
	// ViewResource reads resource uri of MCP server server for a view, its
	// contents at most protocol.AppResourceBytes.
	ViewResource(ctx context.Context, server, uri string) ([]protocol.AppResourceContent, error)
}

// ServerTool describes a tool of an MCP server for the tool set.
func ServerTool(name, description string, schema json.RawMessage, readOnly bool) Tool {
	kind := KindServer
	if readOnly {
		kind = KindRead
	}
	return Tool{Kind: kind, OnServer: true, Spec: llm.ToolSpec{Name: name, Description: description, Parameters: schema}}
}
