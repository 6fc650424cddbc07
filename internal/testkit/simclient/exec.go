package simclient

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/rtcagent/rtcagent/internal/protocol"
	"github.com/rtcagent/rtcagent/internal/tools"
)

// Result is what a tool returns for one RTC.
type Result struct {
	OK     bool
	Output any    // marshalled to JSON when OK
	Error  string // when not OK
	Reject bool   // the user declined: status rejected instead of a result
}

// ToolFunc executes one RTC.
type ToolFunc func(ctx context.Context, r protocol.RTC) Result

// execTimeout bounds the RPCs of one execution, so a dead server cannot wedge
// the loop forever.
const execTimeout = 30 * time.Second

// execLoop executes RTCs one at a time, as the browser SDK does.
func (c *Client) execLoop() {
	for {
		select {
		case <-c.done:
			return
		case d := <-c.exec:
			if err := c.run(d); err != nil {
				c.fail(err)
			}
		}
	}
}

// delivered is a call queued for execution and when it arrived (zero: it
// was listed, not pushed).
type delivered struct {
	rtc protocol.RTC
	at  time.Time
}

// waited takes the wait for the server's answer to an RPC sent at sent out
// of the client's share: it moves the arrival that much later.
func (d *delivered) waited(sent time.Time) {
	if !d.at.IsZero() {
		d.at = d.at.Add(time.Since(sent))
	}
}

// submitting reports the client's share of d's round trip (Config.OnSubmit).
func (c *Client) submitting(d delivered) {
	if c.cfg.OnSubmit != nil && !d.at.IsZero() {
		c.cfg.OnSubmit(d.rtc.ToolCallID, time.Since(d.at))
	}
}

func (c *Client) run(d delivered) error {
	r := d.rtc
	if r.Status == protocol.RTCQueued {
		// Listed by v1.rtc.pending while it waits behind another call of its
		// turn: it is delivered (pending) later, as the browser SDK waits.
		return nil
	}
	if r.Executor == protocol.RTCExecutorServer {
		return c.confirmServerCall(r)
	}
	if c.cfg.Profile != nil {
		return c.runJournaled(d)
	}
	ctx, cancel := context.WithTimeout(context.Background(), execTimeout)
	defer cancel()
	approval, allowed, err := c.confirm(ctx, r)
	if err != nil || !allowed {
		return err
	}
	// Stable client ids: a retry after a lost reply is recognised by the server.
	if !tools.ReadOnly(r.ToolName) {
		sent := time.Now()
		if err := c.Call(ctx, protocol.MethodRTCUpdateStatus, protocol.RTCUpdateStatusRequest{RTCID: r.ID, Status: protocol.RTCExecuting,
			ClientID: "exec-" + r.ID, Approval: approval}, nil); err != nil {
			return fmt.Errorf("executing %s: %w", r.ID, err)
		}
		d.waited(sent)
	}
	res := c.cfg.Tool(ctx, r)
	c.mu.Lock()
	c.executed++
	c.mu.Unlock()
	if res.Reject {
		c.submitting(d)
		if err := c.Call(ctx, protocol.MethodRTCUpdateStatus, protocol.RTCUpdateStatusRequest{RTCID: r.ID, Status: protocol.RTCRejected,
			ClientID: "res-" + r.ID}, nil); err != nil {
			return fmt.Errorf("reject %s: %w", r.ID, err)
		}
		return nil
	}
	req := protocol.RTCSubmitResultRequest{RTCID: r.ID, ClientID: "res-" + r.ID, OK: res.OK, Error: res.Error}
	if res.OK {
		out, err := json.Marshal(res.Output)
		if err != nil {
			return fmt.Errorf("output of %s: %w", r.ID, err)
		}
		req.Output = out
	}
	c.submitting(d)
	if err := c.Call(ctx, protocol.MethodRTCSubmitResult, req, nil); err != nil {
		return fmt.Errorf("submit %s: %w", r.ID, err)
	}
	return nil
}
