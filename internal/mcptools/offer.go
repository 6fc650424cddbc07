package mcptools

import (
	"context"
	"encoding/json"

	"github.com/rtcagent/rtcagent/internal/tools"
)

// The Manager is the server's tools.ServerTools, and its tools.ViewTools.
var (
	_ tools.ServerTools = (*Manager)(nil)
	_ tools.ViewTools   = (*Manager)(nil)
)

// Offered returns the tools of every server for the model's tool set.
func (m *Manager) Offered() []tools.Tool {
	list := m.Tools()
	out := make([]tools.Tool, len(list))
	for i, t := range list {
		out[i] = tools.ServerTool(t.Name, t.Description, t.InputSchema, t.ReadOnly)
		out[i].App = t.App
	}
	return out
}

// ViewTool returns the tool named name if a view of its server may call it
// (tools.ViewTools), as the permission rules see it.
func (m *Manager) ViewTool(name string) (tools.Tool, bool) {
	t, ok := m.Lookup(name)
	if !ok || !t.ForView {
		return tools.Tool{}, false
	}
	out := tools.ServerTool(t.Name, t.Description, t.InputSchema, t.ReadOnly)
	return out, true
}

// Run executes one call once; h receives the server's elicitations and
// progress.
func (m *Manager) Run(ctx context.Context, name string, args json.RawMessage, h tools.Hooks) (tools.ServerResult, error) {
	res, err := m.Call(ctx, name, args, h)
	return res.server(), err
}

// ResumeTask waits for a task a call of the tool became (tools.ServerTools).
func (m *Manager) ResumeTask(ctx context.Context, name, id string, h tools.Hooks) (tools.ServerResult, error) {
	res, err := m.resumeTask(ctx, name, id, h)
	return res.server(), err
}

func (r Result) server() tools.ServerResult {
	return tools.ServerResult{OK: r.OK, Output: r.Output, Structured: r.Structured, Error: r.Error}
}

// Rerunnable reports whether the tool is annotated read-only or idempotent,
// once its server has listed its tools (it waits for that until ctx ends). An
// unknown tool (its server gone from the config) is not.
func (m *Manager) Rerunnable(ctx context.Context, name string) (bool, error) {
	if err := m.waitListed(ctx, name); err != nil {
		return false, err
	}
	t, ok := m.Lookup(name)
	return ok && t.Rerunnable(), nil
}
