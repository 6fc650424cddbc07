package simclient

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/rtcagent/rtcagent/internal/protocol"
	"github.com/rtcagent/rtcagent/internal/tools"
)

// journaledTimeout bounds one journaled execution including its retries across
// server restarts.
const journaledTimeout = 2 * time.Minute

// interrupted is reported for a call a previous page started and never
// finished: it is never run again.
const interrupted = "interrupted: the page was reloaded while the tool ran"

// runJournaled executes r at most once per profile, as the browser SDK does: the
// journal entry is written before the tool runs, the result stays in the outbox
// until the server acknowledged it, and a call a closed page had started is
// reported as failed instead of run again.
func (c *Client) runJournaled(d delivered) error {
	r := d.rtc
	ctx, cancel := context.WithTimeout(context.Background(), journaledTimeout)
	defer cancel()
	p := c.cfg.Profile
	p.mu.Lock()
	if e := p.journal[r.ID]; e != nil {
		switch {
		case e.Acked, e.Result == nil && e.owner == c:
			p.mu.Unlock()
			return nil
		case e.Result == nil: // started by a page that is gone
			e.Result = &Result{Error: interrupted}
		}
		e.owner = c
		res := *e.Result
		p.mu.Unlock()
		return c.submit(ctx, r, res, e)
	}
	p.mu.Unlock()
	if protocol.RTCTerminal(r.Status) {
		return nil
	}
	approval, allowed, err := c.confirm(ctx, r)
	if err != nil || !allowed {
		return err
	}
	if !tools.ReadOnly(r.ToolName) {
		sent := time.Now()
		err := c.CallRetry(ctx, protocol.MethodRTCUpdateStatus, protocol.RTCUpdateStatusRequest{RTCID: r.ID, Status: protocol.RTCExecuting,
			ClientID: "exec-" + r.ID, Approval: approval}, nil)
		var pe *protocol.Error
		if errors.As(err, &pe) && pe.Code == protocol.CodeConflict {
			return nil // the call ended meanwhile (deadline, stop): nothing to run
		}
		if errors.As(err, &pe) && pe.Code == protocol.CodeNotFound {
			return nil // its session was deleted: nothing to run
		}
		if err != nil {
			return c.closedOr(fmt.Errorf("executing %s: %w", r.ID, err))
		}
		d.waited(sent)
	}
	p.mu.Lock()
	if p.journal[r.ID] != nil { // queued twice and already handled
		p.mu.Unlock()
		return nil
	}
	e := &Execution{Runs: 1, owner: c}
	p.journal[r.ID] = e
	p.mu.Unlock()

	res := c.cfg.Tool(ctx, r)
	select {
	case <-c.done:
		return nil // the page went away while the tool ran: its result is lost
	default:
	}
	p.mu.Lock()
	e.Result = &res
	p.mu.Unlock()
	c.mu.Lock()
	c.executed++
	c.mu.Unlock()
	c.submitting(d)
	return c.submit(ctx, r, res, e)
}

// submit sends the outbox entry until the server answers.
func (c *Client) submit(ctx context.Context, r protocol.RTC, res Result, e *Execution) error {
	var out protocol.RTCResult
	var err error
	if res.Reject {
		err = c.CallRetry(ctx, protocol.MethodRTCUpdateStatus, protocol.RTCUpdateStatusRequest{RTCID: r.ID, Status: protocol.RTCRejected,
			ClientID: "res-" + r.ID}, &out)
		var pe *protocol.Error
		if errors.As(err, &pe) && pe.Code == protocol.CodeConflict {
			err = c.CallRetry(ctx, protocol.MethodRTCGet, protocol.IDRequest{RTCID: r.ID}, &out)
		}
	} else {
		req := protocol.RTCSubmitResultRequest{RTCID: r.ID, ClientID: "res-" + r.ID, OK: res.OK, Error: res.Error}
		if res.OK {
			if req.Output, err = json.Marshal(res.Output); err != nil {
				return fmt.Errorf("output of %s: %w", r.ID, err)
			}
		}
		err = c.CallRetry(ctx, protocol.MethodRTCSubmitResult, req, &out)
	}
	var pe *protocol.Error
	if errors.As(err, &pe) && pe.Code == protocol.CodeNotFound {
		// Its session was deleted meanwhile: the result has nowhere to go.
		c.cfg.Profile.mu.Lock()
		e.Acked, e.Gone = true, true
		c.cfg.Profile.mu.Unlock()
		return nil
	}
	if err != nil {
		return c.closedOr(fmt.Errorf("submit %s: %w", r.ID, err))
	}
	c.cfg.Profile.mu.Lock()
	e.Acked, e.Answer = true, out.RTC
	c.cfg.Profile.mu.Unlock()
	return nil
}

// closedOr drops err when the client was closed: a page that went away leaves
// its outbox to the next one.
func (c *Client) closedOr(err error) error {
	select {
	case <-c.done:
		return nil
	default:
		return err
	}
}
