package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/rtcagent/rtcagent/internal/protocol"
)

// maxOutputBytes is the largest result submitted as it is; the server's request
// limit is 1 MiB.
const maxOutputBytes = 900_000

// afterOutcome, when set (tests), runs after an outcome was written to the
// journal and before it is submitted.
var afterOutcome func(rtcID string)

// execLoop runs delivered calls one at a time, in delivery order.
func (c *Client) execLoop(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-c.execQ.ready:
		}
		for {
			r, ok := c.execQ.pop()
			if !ok || ctx.Err() != nil {
				break
			}
			if err := c.process(ctx, r); err != nil && ctx.Err() == nil {
				c.log.Error("rtcagent client: call", "rtc", r.ID, "tool", r.ToolName, "error", err)
			}
		}
	}
}

func (c *Client) latest(id string) string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.status[id]
}

// session returns a session, from the stream or from the server.
func (c *Client) session(ctx context.Context, id string) (protocol.Session, error) {
	c.mu.Lock()
	s, ok := c.sessions[id]
	c.mu.Unlock()
	if ok {
		return s, nil
	}
	var res protocol.SessionResult
	if err := c.callRetry(ctx, protocol.MethodSessionGet, protocol.IDRequest{SessionID: id}, &res); err != nil {
		return s, err
	}
	c.mu.Lock()
	if cur, ok := c.sessions[id]; !ok || cur.Offset < res.Session.Offset {
		c.sessions[id] = res.Session
	}
	s = c.sessions[id]
	c.mu.Unlock()
	return s, nil
}

// finish records an outcome and hands it to the outbox.
func (c *Client) finish(r protocol.RTC, o outcome) error {
	o.ClientID = "res-" + r.ID
	ok, err := c.j.finish(r.ID, r.SessionID, r.ToolName, o)
	if err != nil || !ok {
		return err
	}
	if afterOutcome != nil {
		afterOutcome(r.ID)
	}
	kick(c.outKick)
	return nil
}

func (c *Client) process(ctx context.Context, r protocol.RTC) error {
	if e, ok := c.j.get(r.ID); ok {
		if e.Outcome != nil && !e.Acked {
			kick(c.outKick)
		}
		return nil
	}
	if protocol.RTCTerminal(c.latest(r.ID)) {
		return nil
	}
	s, err := c.session(ctx, r.SessionID)
	var pe *Error
	if errors.As(err, &pe) && (pe.Code == protocol.CodeNotFound || pe.Code == protocol.CodeForbidden) {
		return nil // deleted, or not this user's device
	}
	if err != nil {
		return err
	}
	if s.DeviceID != c.opts.DeviceID {
		return nil // another device of the user runs it
	}
	call := Call{ID: r.ID, SessionID: r.SessionID, TurnID: r.TurnID, Tool: r.ToolName, Args: r.Arguments}
	if r.Executor == protocol.RTCExecutorServer {
		return c.processServerCall(ctx, r, call)
	}
	if r.Status == protocol.RTCExecuting || c.latest(r.ID) == protocol.RTCExecuting {
		// Started by this device in a life this journal does not know: its effects
		// may have happened. Never run it again.
		return c.finish(r, outcome{Error: interrupted})
	}
	t, ok := c.tool(r.ToolName)
	if !ok {
		return c.finish(r, outcome{Error: fmt.Sprintf("the tool %s is not available in this client; its tools are: %s",
			r.ToolName, strings.Join(c.toolNames(), ", "))})
	}
	if r.NeedsConfirmation || s.WorkMode != protocol.ModeBypass {
		approved, reason, ended := c.confirm(ctx, call)
		if ended {
			return nil
		}
		if !approved {
			return c.finish(r, outcome{Reject: true, Reason: reason})
		}
	}
	if ok, err := c.j.start(r.ID, r.SessionID, r.ToolName); err != nil || !ok {
		return err
	}
	err = c.callRetry(ctx, protocol.MethodRTCUpdateStatus, protocol.RTCUpdateStatusRequest{RTCID: r.ID, Status: protocol.RTCExecuting, ClientID: "exec-" + r.ID}, nil)
	if errors.As(err, &pe) {
		// conflict: the call ended on the server meanwhile; not_found, forbidden:
		// its session is gone. Nothing ran, nothing to send.
		return c.j.ack(r.ID)
	}
	if err != nil {
		return err // the client stops; the next start reports the call interrupted
	}
	tctx, stop := context.WithCancel(context.WithValue(ctx, callKey{}, call))
	remove := c.running.Add(r.ID, stop)
	if protocol.RTCTerminal(c.latest(r.ID)) {
		stop()
	}
	out, runErr := t.Run(tctx, r.Arguments)
	stop()
	remove()
	if ctx.Err() != nil {
		return nil // the client stops: no outcome, reported interrupted at the next start
	}
	return c.finish(r, outcomeOf(out, runErr))
}

// confirm asks Options.Confirm; ended is true when the call ended on the server
// before an answer.
func (c *Client) confirm(ctx context.Context, call Call) (approved bool, reason string, ended bool) {
	if c.opts.Confirm == nil {
		return false, "this client has no one to approve " + call.Tool + " calls; the user can allow tools with the work mode bypass", false
	}
	cctx, stop := context.WithCancel(context.WithValue(ctx, callKey{}, call))
	defer stop()
	defer c.running.Add(call.ID, stop)()
	if protocol.RTCTerminal(c.latest(call.ID)) {
		return false, "", true
	}
	approved, reason = c.opts.Confirm(cctx, call)
	if cctx.Err() != nil {
		return false, "", true
	}
	if !approved && reason == "" {
		reason = "the user declined this " + call.Tool + " call"
	}
	return approved, reason, false
}

// outcomeOf turns what a tool returned into the outcome submitted.
func outcomeOf(out any, err error) outcome {
	if err != nil {
		return outcome{Error: fitText(err.Error())}
	}
	if s, ok := out.(string); ok {
		out = fitText(s)
	}
	b, merr := json.Marshal(out)
	if merr != nil {
		return outcome{Error: "the tool's result could not be encoded as JSON: " + merr.Error()}
	}
	if len(b) > maxOutputBytes {
		return outcome{Error: fmt.Sprintf("the tool's result is %d bytes, more than the %d bytes a result may have", len(b), maxOutputBytes)}
	}
	return outcome{OK: true, Output: b}
}

// fitText cuts a long text in its middle with a marker, to fit a submission.
func fitText(s string) string {
	const room = maxOutputBytes / 2 // JSON escaping may double the size
	if len(s) <= room {
		return s
	}
	head, tail := s[:room*4/5], s[len(s)-room/5:]
	for !utf8.ValidString(head) {
		head = head[:len(head)-1]
	}
	for !utf8.ValidString(tail) {
		tail = tail[1:]
	}
	return fmt.Sprintf("%s\n…[%d bytes cut to fit the submission limit]…\n%s", head, len(s)-len(head)-len(tail), tail)
}
