package simclient

import (
	"context"
	"fmt"

	"github.com/rtcagent/rtcagent/internal/protocol"
)

// confirmServerCall handles a call the server executes (a tool of an MCP
// server): the client never runs it. When it needs confirmation, the person
// is asked (Config.Confirm; without it the ToolFunc answers: a Result with
// Reject refuses it, anything else approves it): an approval is sent with
// v1.rtc.approve, "Allow for this chat" as scope session.
func (c *Client) confirmServerCall(r protocol.RTC) error {
	if !r.NeedsConfirmation || r.Approved() {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), execTimeout)
	defer cancel()
	var approval *protocol.ApprovalAnswer
	if c.cfg.Confirm != nil {
		a := c.cfg.Confirm(ctx, r)
		if !a.Allow {
			return c.refuse(ctx, r, a.Reason)
		}
		approval = approvalOf(a)
	} else if res := c.cfg.Tool(ctx, r); res.Reject {
		if err := c.Call(ctx, protocol.MethodRTCUpdateStatus, protocol.RTCUpdateStatusRequest{RTCID: r.ID, Status: protocol.RTCRejected,
			ClientID: "res-" + r.ID, Reason: res.Error}, nil); err != nil {
			return fmt.Errorf("reject %s: %w", r.ID, err)
		}
		return nil
	}
	if err := c.CallRetry(ctx, protocol.MethodRTCApprove, protocol.RTCApproveRequest{RTCID: r.ID, ClientID: "approve-" + r.ID, Approval: approval}, nil); err != nil {
		if isCode(err, protocol.CodeConflict) || isCode(err, protocol.CodeNotFound) {
			return nil // it ended meanwhile (deadline, stop, plan mode) or its session is gone
		}
		return c.closedOr(fmt.Errorf("approve %s: %w", r.ID, err))
	}
	return nil
}
