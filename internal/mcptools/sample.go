package mcptools

import (
	"context"
	"errors"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/rtcagent/rtcagent/internal/tools"
)

// sample hands a server's request to use the model to the Sampler of the call
// in flight, or refuses it. Only text is sent: a request with other content
// is refused, as is one past the limits (tools.SampleRequest.Check).
func (m *Manager) sample(ctx context.Context, c *conn, req *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
	if req.Params == nil {
		return nil, errors.New("a request to use the model without parameters")
	}
	run := c.hooks(ctx, req.Params.Meta).Sample
	if run == nil {
		m.log.Info("request to use the model refused: no call to ask for", "server", c.srv.Name)
		return nil, errors.New("the client runs requests to use the model only during a tool call")
	}
	q := tools.SampleRequest{Server: c.srv.Name, SystemPrompt: req.Params.SystemPrompt, MaxTokens: int(req.Params.MaxTokens)}
	for _, msg := range req.Params.Messages {
		var text *mcp.TextContent
		if msg != nil {
			text, _ = msg.Content.(*mcp.TextContent)
		}
		if text == nil {
			return nil, errors.New("the client sends only text to the model")
		}
		q.Messages = append(q.Messages, tools.SampleMessage{Role: string(msg.Role), Text: text.Text})
	}
	if err := q.Check(); err != nil {
		return nil, fmt.Errorf("request to use the model refused: %w", err)
	}
	res, err := run(ctx, q)
	if err != nil {
		return nil, err
	}
	return &mcp.CreateMessageResult{Role: "assistant", Content: &mcp.TextContent{Text: res.Text}, Model: res.Model, StopReason: "endTurn"}, nil
}
