package session

import (
	"context"
	"errors"
	"time"

	"github.com/rtcagent/rtcagent/internal/lifecycle"
	"github.com/rtcagent/rtcagent/internal/llm"
	"github.com/rtcagent/rtcagent/internal/protocol"
	"github.com/rtcagent/rtcagent/internal/store"
)

// streamWithRetry runs a model step, retrying transient provider errors with
// exponential backoff as long as nothing has streamed yet (a retry after text was
// shown would show it twice).
func (r *Runner) streamWithRetry(ctx context.Context, o *owner, t *protocol.Turn, req *llm.Request, role string) (*stepOutput, error) {
	wait := r.cfg.RetryBackoff
	for attempt := 0; ; attempt++ {
		started := time.Now()
		sctx, span := r.cfg.Tracer.StartStep(ctx, t.TraceParent, r.cfg.Model.Name(), attempt)
		out, err := r.stream(sctx, o, t, req, role)
		span.End(out.usage, len(out.calls), err)
		observeStep(time.Since(started), out.usage, err)
		if err == nil || attempt >= r.cfg.ModelRetries || out.msg != nil || len(out.calls) > 0 || ctx.Err() != nil {
			return out, err
		}
		var me *llm.Error
		if !errors.As(err, &me) || !me.Retryable {
			return out, err
		}
		metricSteps.WithLabelValues("retried").Inc()
		r.log.Info("model step failed, retrying", "turn", t.ID, "attempt", attempt+1, "wait", wait, "err", err)
		select {
		case <-ctx.Done():
			return out, ctx.Err()
		case <-time.After(wait):
		}
		wait *= 2
	}
}

func stepOutcome(err error) string {
	if errors.Is(err, errStopped) {
		return "stopped"
	}
	return "error"
}

// fail ends the turn with a visible error message and drops the item.
func (r *Runner) fail(ctx context.Context, o *owner, item *store.InboxItem, t *protocol.Turn, terr *protocol.TurnError) error {
	var closed []string
	err := r.fenced(ctx, o, func(tx store.Tx) error {
		if err := tx.InboxDelete(*item); err != nil {
			return err
		}
		cur, err := tx.TurnGet(t.ID)
		if err != nil || protocol.TurnTerminal(cur.Status) {
			return err
		}
		closed, err = lifecycle.FailTurn(tx, cur, terr, "cancelled: the turn failed")
		return err
	})
	r.dropClosed(closed, err)
	return err
}
