package session

import (
	"context"
	"errors"

	"github.com/rtcagent/rtcagent/internal/agent"
	"github.com/rtcagent/rtcagent/internal/core"
	"github.com/rtcagent/rtcagent/internal/lifecycle"
	"github.com/rtcagent/rtcagent/internal/llm"
	"github.com/rtcagent/rtcagent/internal/protocol"
	"github.com/rtcagent/rtcagent/internal/store"
	"github.com/rtcagent/rtcagent/internal/tools"
)

// Compaction configures automatic summaries of long conversations.
type Compaction struct {
	// Threshold is the context size, in tokens, past which the history is
	// summarised before the next model step; 0 disables automatic compaction.
	Threshold int64
	// Keep is the recent tail, in estimated tokens, kept verbatim after a
	// summary; 0 means a fifth of Threshold.
	Keep int64
}

func (c Compaction) keep() int64 {
	if c.Keep > 0 {
		return c.Keep
	}
	return c.Threshold / 5
}

// compactResult tells runSteps what a compaction did.
type compactResult int

const (
	compactSkipped compactResult = iota // no compaction: take the step as planned
	compactDone                         // a summary was written: build the request again
	compactEnded                        // the turn ended (stopped or failed) and its item is gone
)

// autoCompact summarises the older history when the request the step would send
// fills more than the threshold.
func (r *Runner) autoCompact(ctx context.Context, o *owner, item *store.InboxItem, t *protocol.Turn, tr agent.Transcript,
	set *tools.Set, req *llm.Request) (compactResult, error) {
	c := r.cfg.Compaction
	if c.Threshold <= 0 || agent.ContextTokens(tr, t.Seq, req) <= c.Threshold {
		return compactSkipped, nil
	}
	plan := agent.PlanCompaction(tr, t.Seq, c.keep(), r.cfg.Limits.ToolResultBytes)
	if plan == nil {
		return compactSkipped, nil // only the latest step is left: nothing to summarise
	}
	metricCompactions.WithLabelValues("auto").Inc()
	return r.summarise(ctx, o, item, t, plan, set, "", agent.RequestTokens(req)-plan.Tokens, false)
}

// compactTurn runs a turn of kind compact: a summary of the whole conversation
// before it, with the turn's instruction.
func (r *Runner) compactTurn(ctx context.Context, o *owner, item *store.InboxItem, t *protocol.Turn, tr agent.Transcript, set *tools.Set) error {
	plan := agent.PlanCompaction(tr, t.Seq, 0, r.cfg.Limits.ToolResultBytes)
	if plan == nil {
		// Nothing to summarise (a new session, or compacted just now): done.
		var closed []string
		err := r.fencedItem(ctx, o, item, func(tx store.Tx, finish func() error) error {
			closed = nil
			_, cur, err := lockTurn(tx, t)
			if err != nil {
				return err
			}
			if cur.Status != protocol.TurnRunning {
				return tx.InboxDelete(*item)
			}
			if closed, err = lifecycle.EndTurn(tx, cur, protocol.TurnCompleted, nil, "", nil); err != nil {
				return err
			}
			return finish()
		})
		r.dropClosed(closed, err)
		return err
	}
	metricCompactions.WithLabelValues("requested").Inc()
	_, err := r.summarise(ctx, o, item, t, plan, set, t.Instruction, 0, true)
	return err
}

// summarise streams the summary of plan as a summary message of the turn and
// commits it. end completes the turn (a compact turn); otherwise the turn goes
// on. remaining is the context left besides the summary, for context_tokens.
func (r *Runner) summarise(ctx context.Context, o *owner, item *store.InboxItem, t *protocol.Turn, plan *agent.Compaction,
	set *tools.Set, instruction string, remaining int64, end bool) (_ compactResult, err error) {
	ctx, endSpan := r.cfg.Tracer.Compaction(ctx, t.TraceParent, plan.SummaryOfSeq)
	defer func() {
		if errors.Is(err, errReleased) {
			endSpan(nil) // a compact turn that ended and gave the lease back succeeded
			return
		}
		endSpan(err)
	}()
	req := agent.SummaryRequest(plan, instruction, set.Specs())
	out, err := r.streamWithRetry(ctx, o, t, req, protocol.RoleSummary)
	if err != nil {
		return compactEnded, r.streamFailed(ctx, o, item, t, out, err)
	}
	if out.msg == nil || out.text.Len() == 0 {
		r.log.Warn("the model returned an empty summary", "turn", t.ID)
		if !end {
			return compactSkipped, nil
		}
		terr := &protocol.TurnError{Category: "model_error", Message: "The model returned an empty summary. Try again.", Retryable: true}
		return compactEnded, r.fail(ctx, o, item, t, terr)
	}
	r.price(&out.usage)
	result := compactDone
	var closed []string // messages EndTurn closed besides the summary
	err = r.fencedItem(ctx, o, item, func(tx store.Tx, finish func() error) error {
		result, closed = compactDone, nil
		_, cur, err := lockTurn(tx, t)
		if err != nil {
			return err
		}
		if cur.Status != protocol.TurnRunning {
			result = compactEnded // stopped meanwhile: keep what streamed
			return r.closeInterrupted(tx, item, out)
		}
		*t = *cur
		usage := out.usage
		m := out.msg
		m.Text, m.Status, m.SummaryOfSeq, m.Usage = out.finalText(), protocol.MessageComplete, plan.SummaryOfSeq, &usage
		if err := core.EmitMessage(tx, m, protocol.MessageStreaming, ""); err != nil {
			return err
		}
		t.Usage.Add(usage)
		t.ContextTokens = remaining + agent.EstimateTokens([]llm.Message{agent.SummaryBlock(m.Text)})
		if !end {
			return core.EmitTurn(tx, t, protocol.TurnRunning)
		}
		result = compactEnded
		if closed, err = lifecycle.EndTurn(tx, t, protocol.TurnCompleted, nil, "", nil); err != nil {
			return err
		}
		return finish()
	})
	r.dropPartial(out, err)
	r.dropClosed(closed, err)
	return result, err
}
