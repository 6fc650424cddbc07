package session

import (
	"context"
	"encoding/json"
	"errors"
	"sync/atomic"
	"time"

	"github.com/rtcagent/rtcagent/internal/core"
	"github.com/rtcagent/rtcagent/internal/lifecycle"
	"github.com/rtcagent/rtcagent/internal/mcptools"
	"github.com/rtcagent/rtcagent/internal/protocol"
	"github.com/rtcagent/rtcagent/internal/store"
	"github.com/rtcagent/rtcagent/internal/tools"
)

// elicitPoll is how often a question of a server call is read again while the
// person has not answered (the answer may be submitted on another node).
const elicitPoll = 250 * time.Millisecond

// elicitAsker returns the Asker of server call parent: each question of the
// tool's server becomes an askUser RTC of the call's turn, delivered to the
// person's browser with the human-wait budget capped at the call's deadline, and
// its answer goes back to the server: an answer is accepted, a refusal
// declines, a timeout or failure cancels. When ctx ends first (a stop, the
// call's deadline, the worker's end) the question is ended, so none stays
// pending.
func (r *Runner) elicitAsker(parent *protocol.RTC) tools.Asker {
	var n atomic.Int64
	return func(ctx context.Context, message string, schema json.RawMessage) (string, map[string]any, error) {
		log := r.log.With("rtc", parent.ID, "tool", parent.ToolName)
		form, err := mcptools.NewForm(message, schema)
		if err != nil {
			log.Info("elicitation declined: its form cannot be shown", "err", err)
			return "decline", nil, nil
		}
		id, nth := core.NewID(), n.Add(1)
		err = r.cfg.Store.Write(ctx, func(tx store.Tx) error {
			return lifecycle.Ask(tx, parent.ID, nth, id, form.Arguments(), r.cfg.Limits.HumanTimeout)
		})
		if errors.Is(err, lifecycle.ErrCallEnded) {
			return "cancel", nil, nil
		}
		if err != nil {
			return "", nil, err
		}
		q, err := r.awaitAnswer(ctx, id)
		if err != nil {
			return "", nil, err
		}
		switch q.Status {
		case protocol.RTCCompleted:
			content, err := form.Content(q.Output)
			if err != nil {
				log.Info("elicitation declined: the answer does not fit the requested schema", "ask", id, "err", err)
				return "decline", nil, nil
			}
			return "accept", content, nil
		case protocol.RTCRejected:
			return "decline", nil, nil
		}
		return "cancel", nil, nil
	}
}

// awaitAnswer reads question id until it ends. When ctx ends first it ends the
// question (a compare-and-set: an answer that came meanwhile stays) and returns
// ctx's error.
func (r *Runner) awaitAnswer(ctx context.Context, id string) (*protocol.RTC, error) {
	tick := time.NewTicker(elicitPoll)
	defer tick.Stop()
	for {
		var q *protocol.RTC
		err := r.cfg.Store.Read(ctx, func(tx store.Tx) error {
			var err error
			q, err = tx.RTCGet(id)
			return err
		})
		if err == nil && protocol.RTCTerminal(q.Status) {
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
