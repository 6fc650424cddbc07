package simclient

import (
	"context"
	"fmt"

	"github.com/rtcagent/rtcagent/internal/protocol"
)

// confirmServerCall handles a call the server executes (a tool of an MCP
// server): the client never runs it. When it needs confirmation, the ToolFunc
// is asked as the person would be: a Result with Reject refuses it, anything
// else approves it (v1.rtc.approve).
func (c *Client) confirmServerCall(r protocol.RTC) error {
	if !r.NeedsConfirmation || r.Approved {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), execTimeout)
	defer cancel()
	if res := c.cfg.Tool(ctx, r); res.Reject {
		if err := c.Call(ctx, protocol.MethodRTCUpdateStatus, protocol.RTCUpdateStatusRequest{RTCID: r.ID, Status: protocol.RTCRejected,
			ClientID: "res-" + r.ID, Reason: res.Error}, nil); err != nil {
			return fmt.Errorf("reject %s: %w", r.ID, err)
		}
		return nil
	}
	if err := c.Call(ctx, protocol.MethodRTCApprove, protocol.RTCApproveRequest{RTCID: r.ID, ClientID: "approve-" + r.ID}, nil); err != nil {
		return fmt.Errorf("approve %s: %w", r.ID, err)
	}
	return nil
}
