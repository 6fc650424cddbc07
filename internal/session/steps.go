package session

import (
	"context"
	"fmt"

	"github.com/rtcagent/rtcagent/internal/agent"
	"github.com/rtcagent/rtcagent/internal/llm"
	"github.com/rtcagent/rtcagent/internal/protocol"
	"github.com/rtcagent/rtcagent/internal/store"
	"github.com/rtcagent/rtcagent/internal/tools"
)

// stepInput is what a model step is built from: the session's transcript (out of
// the cache until put back) and the page's AGENT.md of the turn.
type stepInput struct {
	entry   *cachedTranscript
	agentMD string
}

// readStepInput reads a step's input in tx.
func (r *Runner) readStepInput(tx store.Tx, t *protocol.Turn) (*stepInput, error) {
	e, err := r.tcache.take(tx, t.SessionID, t.UserID)
	if err != nil {
		return nil, err
	}
	if r.cfg.VerifyTranscripts {
		if err = verifyTranscript(tx, t, e.tr, r.cfg.Limits.ToolResultBytes); err != nil {
			return nil, err
		}
	}
	md, err := turnAgentMD(tx, t, e.tr)
	if err != nil {
		return nil, err
	}
	return &stepInput{entry: e, agentMD: md}, nil
}

// stepInputAsCommitted is a step's input read without a transaction, or nil:
// when the store knows the user's stream position as of its last commit
// (store.Positions: the embedded store) and the session's cached transcript
// catches up to it from this process's commits alone.
func (r *Runner) stepInputAsCommitted(t *protocol.Turn) *stepInput {
	ps, ok := r.cfg.Store.(store.Positions)
	if !ok {
		return nil
	}
	pos, ok := ps.Committed(t.UserID)
	if !ok {
		return nil
	}
	e := r.tcache.takeCommitted(t.SessionID, t.UserID, pos)
	if e == nil {
		return nil
	}
	md, ok := agentMDIn(t, e.tr)
	if !ok {
		r.tcache.put(t.SessionID, e) // caught up: the read finds it so
		return nil
	}
	return &stepInput{entry: e, agentMD: md}
}

// verifyAsCommitted checks a transcript stepInputAsCommitted brought up to
// date against the store (Config.VerifyTranscripts), when the user's stream
// is still where it was brought to.
func (r *Runner) verifyAsCommitted(ctx context.Context, t *protocol.Turn, e *cachedTranscript) error {
	return r.cfg.Store.Read(ctx, func(tx store.Tx) error {
		pos, err := tx.StreamGet(t.UserID)
		if err != nil || pos.Epoch != e.epoch || pos.Top != e.top {
			return err // moved on since: nothing to compare with
		}
		return verifyTranscript(tx, t, e.tr, r.cfg.Limits.ToolResultBytes)
	})
}

// runSteps calls the model until the turn suspends, completes or fails. in, when
// set, is the first step's input, read by the committed transaction that took
// the item.
func (r *Runner) runSteps(ctx context.Context, o *owner, item *store.InboxItem, t *protocol.Turn, in *stepInput) error {
	for {
		if t.Step >= r.cfg.Limits.StepLimit {
			terr := &protocol.TurnError{Category: "step_limit", Message: fmt.Sprintf("The turn stopped after %d model steps, the limit for one turn. Send a message to continue.", t.Step)}
			return r.fail(ctx, o, item, t, terr)
		}
		if in == nil {
			if in = r.stepInputAsCommitted(t); in != nil && r.cfg.VerifyTranscripts {
				if err := r.verifyAsCommitted(ctx, t, in.entry); err != nil {
					return err
				}
			}
		}
		if in == nil {
			err := r.cfg.Store.Read(ctx, func(tx store.Tx) error {
				var err error
				in, err = r.readStepInput(tx, t)
				return err
			})
			if err != nil {
				return err
			}
		}
		r.tcache.put(t.SessionID, in.entry)
		tr, agentMD := in.entry.tr, in.agentMD
		in = nil
		set := tools.ForTurn(t, r.serverTools()...)
		if t.Kind == protocol.TurnKindCompact {
			return r.compactTurn(ctx, o, item, t, tr, set)
		}
		req := &llm.Request{System: agent.SystemPrompt(r.cfg.System, agentMD, t.HostToolsOnly), Tools: set.Specs(),
			Messages: agent.BuildMessages(tr, t.Seq, r.cfg.Limits.ToolResultBytes)}
		switch res, err := r.autoCompact(ctx, o, item, t, tr, set, req); {
		case err != nil || res == compactEnded:
			return err
		case res == compactDone:
			continue // the next request starts from the new summary
		}
		out, err := r.streamWithRetry(ctx, o, t, req, protocol.RoleAssistant)
		if err != nil {
			metricSteps.WithLabelValues(stepOutcome(err)).Inc()
			return r.streamFailed(ctx, o, item, t, out, err)
		}
		if len(out.calls) > 0 {
			metricSteps.WithLabelValues("tools").Inc()
		} else {
			metricSteps.WithLabelValues("answer").Inc()
		}
		suspended, err := r.commitStep(ctx, o, item, t, set, out, tr)
		if err != nil || suspended {
			return err
		}
	}
}
