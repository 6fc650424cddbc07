package client

import (
	"context"

	"github.com/google/uuid"

	"github.com/rtcagent/rtcagent/internal/protocol"
)

// Send posts a user message with this client's tools and returns the Reply
// that follows its turn. The model is offered only these tools and the
// server's MCP tools, not the browser's built-in ones (a Go client runs none). An empty sessionID starts a new session, owned by
// this device (Reply.SessionID names it). The message is sent with an
// idempotency key and retried while the server cannot be reached, so it is
// posted once.
func (c *Client) Send(ctx context.Context, sessionID, text string) (*Reply, error) {
	req := protocol.MessageSendRequest{ClientID: uuid.NewString(), SessionID: sessionID, Content: protocol.MessageContent{Text: text},
		WorkMode: c.opts.WorkMode, Tools: c.toolSpecs(), HostToolsOnly: true}
	var res protocol.MessageSendResult
	if err := c.callRetry(ctx, protocol.MethodMessageSend, req, &res); err != nil {
		return nil, err
	}
	r := c.newReply(res.SessionID, res.MessageID, res.TurnID)
	c.disp.push(item{reg: r})
	return r, nil
}

// Stop ends the session's running turn (its open calls fail as cancelled).
func (c *Client) Stop(ctx context.Context, sessionID string) error {
	return c.Call(ctx, protocol.MethodTurnStop, protocol.IDRequest{SessionID: sessionID}, nil)
}
