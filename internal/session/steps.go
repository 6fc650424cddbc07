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

// runSteps calls the model until the turn suspends, completes or fails.
func (r *Runner) runSteps(ctx context.Context, o *owner, item *store.InboxItem, t *protocol.Turn) error {
	for {
		if t.Step >= r.cfg.Limits.StepLimit {
			terr := &protocol.TurnError{Category: "step_limit", Message: fmt.Sprintf("The turn stopped after %d model steps, the limit for one turn. Send a message to continue.", t.Step)}
			return r.fail(ctx, o, item, t, terr)
		}
		var tr agent.Transcript
		var agentMD string
		err := r.cfg.Store.Read(ctx, func(tx store.Tx) error {
			var err error
			if tr, err = r.tcache.load(tx, t.SessionID, t.UserID); err != nil {
				return err
			}
			if r.cfg.VerifyTranscripts {
				if err = verifyTranscript(tx, t, tr, r.cfg.Limits.ToolResultBytes); err != nil {
					return err
				}
			}
			agentMD, err = turnAgentMD(tx, t, tr)
			return err
		})
		if err != nil {
			return err
		}
		set := tools.NewSet(t.Tools)
		if t.Kind == protocol.TurnKindCompact {
			return r.compactTurn(ctx, o, item, t, tr, set)
		}
		req := &llm.Request{System: agent.SystemPrompt(r.cfg.System, agentMD), Tools: set.Specs(),
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
