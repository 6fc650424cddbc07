package client

import (
	"context"
	"errors"
	"time"

	"github.com/rtcagent/rtcagent/internal/protocol"
)

// outboxLoop submits the outcomes in the journal until the server answers:
// at once when kicked (a new outcome, a reconnect), else with a backoff of
// 1 s doubling to 30 s after a failed round.
func (c *Client) outboxLoop(ctx context.Context) {
	attempt := 0
	for {
		failed := false
		for id, o := range c.j.outbox() {
			if ctx.Err() != nil {
				return
			}
			if !c.submit(ctx, id, o) {
				failed = true
			}
		}
		var wait <-chan time.Time
		if failed {
			wait = time.After(backoff(attempt, time.Second, 30*time.Second))
			attempt++
		} else {
			attempt = 0
		}
		select {
		case <-ctx.Done():
			return
		case <-c.outKick:
		case <-wait:
		}
	}
}

// submit makes one attempt to deliver an outcome; false when it should be
// tried again.
func (c *Client) submit(ctx context.Context, id string, o outcome) bool {
	actx, cancel := context.WithTimeout(ctx, attemptTimeout)
	defer cancel()
	var err error
	if o.Reject {
		err = c.Call(actx, protocol.MethodRTCUpdateStatus, protocol.RTCUpdateStatusRequest{RTCID: id, Status: protocol.RTCRejected, ClientID: o.ClientID, Reason: o.Reason}, nil)
	} else {
		err = c.Call(actx, protocol.MethodRTCSubmitResult, protocol.RTCSubmitResultRequest{RTCID: id, ClientID: o.ClientID, OK: o.OK, Output: o.Output, Error: o.Error}, nil)
	}
	if err == nil {
		if err := c.j.ack(id); err != nil {
			c.log.Error("rtcagent client: journal", "error", err)
		}
		return true
	}
	var pe *Error
	switch {
	case temporary(err):
		c.log.Debug("rtcagent client: submission will be retried", "rtc", id, "error", err)
		return false
	case errors.As(err, &pe) && pe.Code == protocol.CodeTooLarge && !o.Reject:
		o = outcome{ClientID: o.ClientID, Error: "the tool result was too large to send to the server"}
		if err := c.j.replace(id, o); err != nil {
			c.log.Error("rtcagent client: journal", "error", err)
		}
		return false
	default:
		// conflict: the call ended otherwise (stopped, timed out); not_found or
		// forbidden: the session is gone. Nobody can use this outcome any more.
		c.log.Warn("rtcagent client: outcome dropped", "rtc", id, "error", err)
		if err := c.j.ack(id); err != nil {
			c.log.Error("rtcagent client: journal", "error", err)
		}
		return true
	}
}
