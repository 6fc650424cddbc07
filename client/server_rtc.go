package client

import (
	"context"
	"errors"

	"github.com/rtcagent/rtcagent/internal/protocol"
)

// processServerCall handles a call the server executes (a tool of an MCP server
// configured on the server): the client never runs it. When it needs
// confirmation, Options.Confirm is asked; an approval is sent with
// v1.rtc.approve, a refusal as rejected through the outbox.
func (c *Client) processServerCall(ctx context.Context, r protocol.RTC, call Call) error {
	if !r.NeedsConfirmation || r.Approved() || r.Status == protocol.RTCExecuting {
		return nil
	}
	approved, reason, ended := c.confirm(ctx, call)
	if ended {
		return nil
	}
	if !approved {
		return c.finish(r, outcome{Reject: true, Reason: reason})
	}
	err := c.callRetry(ctx, protocol.MethodRTCApprove, protocol.RTCApproveRequest{RTCID: r.ID, ClientID: "approve-" + r.ID}, nil)
	var pe *Error
	if errors.As(err, &pe) {
		return nil // ended on the server meanwhile, or its session is gone
	}
	return err
}
