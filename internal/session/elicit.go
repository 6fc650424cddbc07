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

// elicitPoll is how often a question of a server call is read again while the
// person has not answered (the answer may be submitted on another node).
const elicitPoll = 250 * time.Millisecond

// elicitAsker returns the Asker of server call parent: each question of the
// tool's server becomes an elicitation RTC of the call's turn, delivered to the
// person's browser with the human-wait budget capped at the call's deadline,
// and its answer goes back to the server: the person's answer (checked
// against the question when it was submitted), a refusal declines, a timeout
// or failure cancels. A question that cannot be shown is recorded, with why,
// on the call's card and declined. When ctx ends first (a stop, the call's
// deadline, the worker's end) the question is ended, so none stays pending.
func (r *Runner) elicitAsker(parent *protocol.RTC, n *atomic.Int64) tools.Asker {
	return func(ctx context.Context, q tools.Question) (tools.ElicitAnswer, error) {
		log := r.log.With("rtc", parent.ID, "tool", parent.ToolName)
		var args *tools.ElicitArgs
		var err error
		if q.URL != "" {
			args, err = tools.NewElicitURL(q.Server, q.Message, q.URL)
		} else {
			args, err = tools.NewElicitForm(q.Server, q.Message, q.Schema, q.Order)
		}
		ask := lifecycle.Question{ParentID: parent.ID, N: n.Add(1), ID: core.NewID(), Human: r.cfg.Limits.HumanTimeout}
		if err != nil {
			log.Info("elicitation declined: it cannot be shown", "err", err)
			ask.Unshowable = protocol.Cut("The server's question cannot be shown: "+err.Error(), 1<<10)
			args = &tools.ElicitArgs{Server: q.Server, Mode: tools.ElicitForm, Message: protocol.Cut(q.Message, 1<<10)}
			if q.URL != "" {
				args.Mode = tools.ElicitURL
			}
		}
		ask.Args = args.JSON()
		err = r.cfg.Store.Write(ctx, func(tx store.Tx) error { return lifecycle.Ask(tx, ask) })
		switch {
		case errors.Is(err, lifecycle.ErrCallEnded):
			return tools.ElicitAnswer{Action: "cancel"}, nil
		case err != nil:
			return tools.ElicitAnswer{}, err
		case ask.Unshowable != "":
			return tools.ElicitAnswer{Action: "decline"}, nil
		}
		rc, err := r.awaitAnswer(ctx, ask.ID, func(q *protocol.RTC) bool { return protocol.RTCTerminal(q.Status) })
		if err != nil {
			return tools.ElicitAnswer{}, err
		}
		switch rc.Status {
		case protocol.RTCCompleted:
			ans, err := tools.CheckElicitAnswer(rc.Arguments, rc.Output)
			if err != nil { // checked when submitted: not expected
				log.Warn("elicitation declined: the answer does not fit the question", "ask", ask.ID, "err", err)
				return tools.ElicitAnswer{Action: "decline"}, nil
			}
			return ans, nil
		case protocol.RTCRejected:
			return tools.ElicitAnswer{Action: "decline"}, nil
		}
		return tools.ElicitAnswer{Action: "cancel"}, nil
	}
}

// awaitAnswer reads question id until it is answered (answered says so; a
// question that ended is always answered). When ctx ends first it ends the
// question (a compare-and-set: an answer that came meanwhile stays) and
// returns ctx's error.
func (r *Runner) awaitAnswer(ctx context.Context, id string, answered func(*protocol.RTC) bool) (*protocol.RTC, error) {
	tick := time.NewTicker(elicitPoll)
	defer tick.Stop()
	for {
		var q *protocol.RTC
		err := r.cfg.Store.Read(ctx, func(tx store.Tx) error {
			var err error
			q, err = tx.RTCGet(id)
			return err
		})
		if err == nil && (protocol.RTCTerminal(q.Status) || answered(q)) {
			return q, nil
		}
		if err != nil && ctx.Err() == nil {
			return nil, err
		}
		select {
		case <-ctx.Done():
		case <-tick.C:
			continue
		}
		reason := "the tool's call ended before the answer"
		for range 3 {
			err = r.cfg.Store.Write(context.WithoutCancel(ctx), func(tx store.Tx) error {
				return lifecycle.EndElicitation(tx, id, reason)
			})
			if !errors.Is(err, store.ErrConflict) {
				break
			}
		}
		if err != nil {
			r.log.Warn("end an unanswered question", "ask", id, "err", err)
		}
		return nil, ctx.Err()
	}
}
