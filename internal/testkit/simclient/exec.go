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
		case r := <-c.exec:
			if err := c.run(r); err != nil {
				c.fail(err)
			}
		}
	}
}

func (c *Client) run(r protocol.RTC) error {
	if r.Status == protocol.RTCQueued {
		// Listed by v1.rtc.pending while it waits behind another call of its
		// turn: it is delivered (pending) later, as the browser SDK waits.
		return nil
	}
	if r.Executor == protocol.RTCExecutorServer {
		return c.confirmServerCall(r)
	}
	if c.cfg.Profile != nil {
		return c.runJournaled(r)
	}
	ctx, cancel := context.WithTimeout(context.Background(), execTimeout)
	defer cancel()
	approval, allowed, err := c.confirm(ctx, r)
	if err != nil || !allowed {
		return err
	}
	// Stable client ids: a retry after a lost reply is recognised by the server.
	if !tools.ReadOnly(r.ToolName) {
		if err := c.Call(ctx, protocol.MethodRTCUpdateStatus, protocol.RTCUpdateStatusRequest{RTCID: r.ID, Status: protocol.RTCExecuting,
			ClientID: "exec-" + r.ID, Approval: approval}, nil); err != nil {
			return fmt.Errorf("executing %s: %w", r.ID, err)
		}
	}
	res := c.cfg.Tool(ctx, r)
	c.mu.Lock()
	c.executed++
	c.mu.Unlock()
	if res.Reject {
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
	if err := c.Call(ctx, protocol.MethodRTCSubmitResult, req, nil); err != nil {
		return fmt.Errorf("submit %s: %w", r.ID, err)
	}
	return nil
}
