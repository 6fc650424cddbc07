package session

import (
	"context"
	"errors"
	"sync/atomic"
	"time"

	"github.com/rtcagent/rtcagent/internal/core"
	"github.com/rtcagent/rtcagent/internal/lifecycle"
	"github.com/rtcagent/rtcagent/internal/protocol"
	"github.com/rtcagent/rtcagent/internal/store"
	"github.com/rtcagent/rtcagent/internal/tools"
)

// InterruptedCall is the error a server call gets when a worker finds it
// started by another one, whose process ended mid-call (a crash, a restart) or
// whose lease moved to another node, and the tool is not annotated read-only
// or idempotent: it may have run, so it is not run again.
const InterruptedCall = "interrupted: the server running it stopped or handed the chat over; not retried"

// serverTools is the server-executed tools to offer in a step.
func (r *Runner) serverTools() []tools.Tool {
	if r.cfg.ServerTools == nil {
		return nil
	}
	return r.cfg.ServerTools.Offered()
}

// runServerRTC runs the open server call of a waiting turn (an rtc.execute
// item): it records executing in a transaction of its own before the call, so a
// crash during the call leaves a trace, makes the call, and submits the outcome
// the way a browser's result is submitted, deleting the item in that
// transaction. A call found executing already was started by an earlier worker:
// it ends as interrupted unless the tool may run again, which is learnt outside
// the transaction (it may wait for the tool's server) and decided in the next.
func (r *Runner) runServerRTC(ctx context.Context, o *owner, item *store.InboxItem, t *protocol.Turn) error {
	var rtc, undecided *protocol.RTC
	decided := map[string]bool{} // may run again, by RTC
	decide := func(tx store.Tx, finish func() error) error {
		rtc, undecided = nil, nil
		open, err := tx.RTCListOpenByTurn(t.ID)
		if err != nil {
			return err
		}
		// The first server call that may run: a step's call and a call its
		// view asked for may both be open, and one waiting for the person
		// holds back neither the other nor its item.
		var rc *protocol.RTC
		for i := range open {
			x := &open[i]
			if x.Executor != protocol.RTCExecutorServer || tools.IsSampling(x.ToolName) {
				continue // a request to use the model runs in the call that made it
			}
			if x.Status == protocol.RTCQueued || x.NeedsConfirmation && !x.Approved() {
				continue // not delivered yet, or waiting for the person: a later item runs it
			}
			rc = x
			break
		}
		switch {
		case rc == nil:
			return finish() // ended meanwhile (stopped, timed out, rejected), or not ready to run
		case r.cfg.ServerTools == nil:
			msg := "no MCP server is configured on this server any more"
			if rc.Status == protocol.RTCExecuting {
				msg = InterruptedCall
			}
			if _, err := lifecycle.EndServerRTC(tx, rc.ID, tools.ServerResult{Error: msg}); err != nil {
				return err
			}
			return finish()
		case rc.Status == protocol.RTCExecuting && rc.TaskID != "":
			// The call became an MCP task, which outlives the worker that
			// started it: this one waits for the same task, running nothing
			// again. Questions the last worker left open are asked again
			// by the task if it still needs them.
			r.log.Info("waiting again for the MCP task of a server call cut off by a restart", "rtc", rc.ID, "tool", rc.ToolName, "task", rc.TaskID)
			if err := lifecycle.EndElicitations(tx, rc, InterruptedCall); err != nil {
				return err
			}
		case rc.Status == protocol.RTCExecuting:
			rerun, known := decided[rc.ID]
			if !known {
				undecided = rc
				return nil
			}
			if !rerun {
				if _, err := lifecycle.EndServerRTC(tx, rc.ID, tools.ServerResult{Error: InterruptedCall}); err != nil {
					return err
				}
				return finish()
			}
			r.log.Info("running a read-only or idempotent server call again after a restart", "rtc", rc.ID, "tool", rc.ToolName)
			if err := lifecycle.EndElicitations(tx, rc, InterruptedCall); err != nil {
				return err
			}
		default:
			started, err := lifecycle.StartServerRTC(tx, rc)
			if err != nil {
				return err
			}
			if !started {
				return finish() // refused now, or waiting for the person's approval
			}
		}
		rtc = rc
		return nil
	}
	err := r.fencedItem(ctx, o, item, decide)
	for err == nil && undecided != nil {
		if decided[undecided.ID], err = r.rerunnable(ctx, t, undecided); err == nil {
			err = r.fencedItem(ctx, o, item, decide)
		}
	}
	if err != nil || rtc == nil {
		return err
	}
	res, answered, late := r.callServer(ctx, o, t, rtc)
	wctx := ctx
	if ctx.Err() != nil {
		if !answered {
			// Shutting down or the lease is gone, and the call was cut off: it
			// stays executing, and the next worker ends it as interrupted (or
			// runs it again when that is harmless).
			return ctx.Err()
		}
		// The MCP server answered, and the worker stops just after: the answer
		// is recorded all the same, so a call that ran is never reported as
		// interrupted.
		wctx = context.WithoutCancel(ctx)
	}
	err = r.fencedItem(wctx, o, item, func(tx store.Tx, finish func() error) error {
		if err := endServerCall(tx, rtc.ID, res, late); err != nil {
			return err
		}
		return finish()
	})
	if errors.Is(err, store.ErrLeaseLost) {
		// The result is kept even so: it is a compare-and-set on the RTC, as a
		// browser's submission is. The new owner finds the RTC ended.
		err = r.cfg.Store.Write(context.WithoutCancel(ctx), func(tx store.Tx) error {
			return endServerCall(tx, rtc.ID, res, late)
		})
		if err == nil {
			err = store.ErrLeaseLost
		}
	}
	return err
}

// rerunnable reports whether a call found executing after a restart may run
// again. It waits, outside any transaction, for the tool's server to list its
// tools (a slow npx start must not turn a harmless re-run into a failure), at
// most until the call's deadline; a stop of the turn ends the wait. A wait that
// ends so means no: the call ends as interrupted.
func (r *Runner) rerunnable(ctx context.Context, t *protocol.Turn, rc *protocol.RTC) (bool, error) {
	wctx, done := r.callContext(ctx, t, rc)
	defer done()
	r.log.Info("a server call was cut off by a restart; waiting for its MCP server to decide whether it runs again", "rtc", rc.ID, "tool", rc.ToolName)
	ok, err := r.cfg.ServerTools.Rerunnable(wctx, rc.ToolName)
	if ctx.Err() != nil {
		return false, ctx.Err() // the worker stops: the next one decides
	}
	if err != nil {
		r.log.Warn("no answer on whether a server call may run again", "rtc", rc.ID, "tool", rc.ToolName, "err", logText(err))
	}
	return ok && err == nil, nil
}

// callServer makes the call within the RTC's deadline; a stop of the turn cancels
// it. A call without an answer fails with a message for the model; answered
// reports whether the MCP server gave one (an answer that was cut off, by a stop,
// the deadline or the worker's end, did not); late, that the RTC's deadline
// ended the call. The call's progress is recorded on the RTC while it runs
// (watchProgress), and not after callServer returned.
func (r *Runner) callServer(ctx context.Context, o *owner, t *protocol.Turn, rtc *protocol.RTC) (res tools.ServerResult, answered, late bool) {
	cctx, done := r.callContext(ctx, t, rtc)
	defer done()
	progress, stopProgress := r.watchProgress(cctx, o, rtc.ID)
	start := time.Now()
	var asked atomic.Int64 // the call's questions and requests to use the model, numbered together
	hooks := tools.Hooks{Ask: r.elicitAsker(rtc, &asked), Sample: r.sampler(rtc, &asked), Progress: progress.put}
	if core.IsViewCall(rtc) {
		// A view's call has no card of its own to put a question or a
		// request to use the model under: its server's are declined.
		hooks.Ask, hooks.Sample = nil, nil
	}
	task := rtc.TaskID
	hooks.Task = func(id string) error {
		task = id
		return r.recordTask(ctx, o, rtc.ID, id)
	}
	var err error
	if task != "" {
		res, err = r.cfg.ServerTools.ResumeTask(cctx, rtc.ToolName, task, hooks)
	} else {
		res, err = r.cfg.ServerTools.Run(cctx, rtc.ToolName, rtc.Arguments, hooks)
	}
	if errors.Is(err, tools.ErrTaskGone) {
		// The server forgot the task (a stdio server is a new process
		// after a restart; a session's tasks may end with it): the call is
		// one a restart cut off, run again only when that is harmless.
		r.log.Info("the MCP server no longer knows a server call's task", "rtc", rtc.ID, "task", task, "err", logText(err))
		res, err = tools.ServerResult{Error: InterruptedCall}, nil
		if ok, _ := r.cfg.ServerTools.Rerunnable(cctx, rtc.ToolName); ok {
			task = ""
			if res, err = r.cfg.ServerTools.Run(cctx, rtc.ToolName, rtc.Arguments, hooks); errors.Is(err, tools.ErrTaskGone) {
				res, err = tools.ServerResult{Error: InterruptedCall}, nil
			}
		}
	}
	stopProgress()
	if err != nil && task != "" && ctx.Err() == nil && cctx.Err() != nil {
		// A stop or the call's deadline ended the wait: the task is ended
		// too, from here, where the task's connection is. (A worker that
		// stops leaves it running for the next one; a call that ends while
		// no worker waits is cancelled from the commit that ends it.)
		r.cancelTask(ctx, rtc, task)
	}
	if err != nil {
		r.log.Warn("server call without an answer", "rtc", rtc.ID, "tool", rtc.ToolName, "after", time.Since(start), "err", logText(err))
		// The error's text is the MCP server's, of any size: it is cut here,
		// before the RTC, the audit, every tab and the transcript get it.
		late = ctx.Err() == nil && errors.Is(cctx.Err(), context.DeadlineExceeded)
		return tools.ServerResult{Error: protocol.Cut("the tool gave no answer: "+err.Error(), r.cfg.Limits.ToolResultBytes)}, false, late
	}
	res.Error = protocol.Cut(res.Error, r.cfg.Limits.ToolResultBytes)
	if len(res.Output) > r.cfg.Limits.ToolResultBytes {
		return tools.ServerResult{Error: "the tool's output is larger than the limit for a result"}, true, false
	}
	return res, true, false
}

// recordTask keeps the MCP task server call id became with the call, so a
// worker after a restart waits for it (runServerRTC).
func (r *Runner) recordTask(ctx context.Context, o *owner, id, task string) error {
	var err error
	for range 3 { // a concurrent change of the RTC (its progress): read it again
		err = r.fenced(ctx, o, func(tx store.Tx) error {
			written, err := lifecycle.TaskServerRTC(tx, id, task)
			if err == nil && !written {
				err = errors.New("the call ended before its task began")
			}
			return err
		})
		if !errors.Is(err, store.ErrConflict) {
			break
		}
	}
	return err
}

// cancelTask asks the MCP server to cancel the task of a call that ended
// without its result, in a wait of its own (the call's context has ended).
func (r *Runner) cancelTask(ctx context.Context, rc *protocol.RTC, task string) {
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	if err := r.cfg.ServerTools.CancelTask(cctx, rc.ToolName, task); err != nil {
		r.log.Info("cancel the MCP task of a server call", "rtc", rc.ID, "task", task, "err", logText(err))
	}
}

// endServerCall records a call's outcome; a call its deadline cut off ends as
// timeout, what the state machine and the model's "[Tool Timeout]" are for,
// not as a failure with the context's error.
func endServerCall(tx store.Tx, id string, res tools.ServerResult, late bool) error {
	var err error
	if late {
		_, err = lifecycle.TimeOutServerRTC(tx, id)
	} else {
		_, err = lifecycle.EndServerRTC(tx, id, res)
	}
	return err
}

// logText is an error's text for the log, bounded: an MCP server's error text
// has no bound of its own.
func logText(err error) string { return protocol.Cut(err.Error(), 1<<10) }

// callContext is the context of work for server call rc: it ends at the call's
// deadline, or when the turn is stopped (CancelTurn), or with ctx. done
// releases it.
func (r *Runner) callContext(ctx context.Context, t *protocol.Turn, rc *protocol.RTC) (_ context.Context, done func()) {
	cctx, cancel := context.WithCancel(ctx)
	stopDeadline := func() {}
	if rc.DeadlineAt != nil {
		cctx, stopDeadline = context.WithDeadline(cctx, *rc.DeadlineAt)
	}
	forget := r.cancels.Add(t.ID, cancel)
	return cctx, func() { forget(); stopDeadline(); cancel() }
}
