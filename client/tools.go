package client

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"

	"github.com/rtcagent/rtcagent/internal/protocol"
	"github.com/rtcagent/rtcagent/internal/tools"
)

// Tool is a function of this program the agent may call. It is offered to the
// model with every message this client sends (a host tool, docs/protocol.md).
type Tool struct {
	// Name: letters, digits, _ and -, starting with a letter, at most 64; not
	// the name of a built-in browser tool (ls, read, write, …).
	Name        string
	Description string
	// Schema is the JSON Schema of the arguments, an object schema. Nil offers
	// the tool without arguments.
	Schema json.RawMessage
	// Run executes one call. Its result is sent to the model as JSON (a string
	// as is); an error is sent as a tool error with its text. ctx ends when the
	// call ends on the server (stopped, timed out) or the client stops.
	Run func(ctx context.Context, args json.RawMessage) (any, error)
}

// Call describes one tool call of the agent.
type Call struct {
	ID        string // the RTC id
	SessionID string
	TurnID    string
	Tool      string
	Args      json.RawMessage
}

type callKey struct{}

// CallOf returns the call a Tool.Run or Confirm context belongs to.
func CallOf(ctx context.Context) (Call, bool) {
	c, ok := ctx.Value(callKey{}).(Call)
	return c, ok
}

// RegisterTool adds or replaces a tool. The server checks tools again when a
// message is sent; RegisterTool refuses what it would refuse.
func (c *Client) RegisterTool(t Tool) error {
	if t.Run == nil {
		return fmt.Errorf("client: tool %q has no Run", t.Name)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	next := map[string]Tool{t.Name: t}
	for name, old := range c.tools {
		if name != t.Name {
			next[name] = old
		}
	}
	if err := tools.ValidateHostTools(hostTools(next), protocol.Limits{}.WithDefaults()); err != nil {
		return fmt.Errorf("client: tool %q: %w", t.Name, err)
	}
	c.tools = next
	return nil
}

// UnregisterTool removes a tool; calls of it that arrive later fail with a
// message for the model.
func (c *Client) UnregisterTool(name string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.tools, name)
}

func hostTools(m map[string]Tool) []protocol.HostTool {
	out := make([]protocol.HostTool, 0, len(m))
	for _, t := range m {
		schema := t.Schema
		if len(schema) == 0 {
			schema = json.RawMessage(`{"type":"object","properties":{}}`)
		}
		out = append(out, protocol.HostTool{Name: t.Name, Description: t.Description, Parameters: schema})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

func (c *Client) toolSpecs() []protocol.HostTool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return hostTools(c.tools)
}

func (c *Client) tool(name string) (Tool, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	t, ok := c.tools[name]
	return t, ok
}

func (c *Client) toolNames() []string {
	var names []string
	for _, t := range c.toolSpecs() {
		names = append(names, t.Name)
	}
	return names
}
