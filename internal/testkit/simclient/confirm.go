package simclient

import (
	"context"
	"errors"
	"fmt"

	"github.com/rtcagent/rtcagent/internal/protocol"
)

// Answer is the person's answer to a call that asks (needs_confirmation).
type Answer struct {
	Allow   bool   // run it; false refuses it
	ForChat bool   // "Allow for this chat" (scope session) rather than this call once
	Reason  string // the person's words for a refusal
}

// ConfirmFunc asks the person about one call that needs confirmation, a
// browser call before it runs or a server call before the server may run it.
type ConfirmFunc func(ctx context.Context, r protocol.RTC) Answer

// confirm asks Config.Confirm about r when the server says r needs
// confirmation. It returns the approval to send with the executing status (nil
// when r did not ask), or ran=false when the person refused it: the refusal is
// then sent (rejected, with the denial as the decision) and nothing runs.
func (c *Client) confirm(ctx context.Context, r protocol.RTC) (approval *protocol.ApprovalAnswer, ran bool, err error) {
	if c.cfg.Confirm == nil || !r.NeedsConfirmation {
		return nil, true, nil
	}
	a := c.cfg.Confirm(ctx, r)
	if !a.Allow {
		return nil, false, c.refuse(ctx, r, a.Reason)
	}
	return approvalOf(a), true, nil
}

func approvalOf(a Answer) *protocol.ApprovalAnswer {
	if a.ForChat {
		return &protocol.ApprovalAnswer{Scope: protocol.ScopeSession}
	}
	return &protocol.ApprovalAnswer{Scope: protocol.ScopeOnce}
}

// refuse sends the person's refusal of r until the server answers; a call
// that ended meanwhile (conflict) or whose session is gone (not found) needs
// none.
func (c *Client) refuse(ctx context.Context, r protocol.RTC, reason string) error {
	if reason == "" {
		reason = "the user declined this " + r.ToolName + " call"
	}
	err := c.CallRetry(ctx, protocol.MethodRTCUpdateStatus, protocol.RTCUpdateStatusRequest{RTCID: r.ID, Status: protocol.RTCRejected,
		ClientID: "res-" + r.ID, Reason: reason, Approval: &protocol.ApprovalAnswer{Reason: reason}}, nil)
	if isCode(err, protocol.CodeConflict) || isCode(err, protocol.CodeNotFound) {
		return nil
	}
	if err != nil {
		return c.closedOr(fmt.Errorf("reject %s: %w", r.ID, err))
	}
	return nil
}

func isCode(err error, code string) bool {
	var pe *protocol.Error
	return errors.As(err, &pe) && pe.Code == code
}
