package session

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/rtcagent/rtcagent/internal/agent"
	"github.com/rtcagent/rtcagent/internal/core"
	"github.com/rtcagent/rtcagent/internal/llm"
	"github.com/rtcagent/rtcagent/internal/protocol"
	"github.com/rtcagent/rtcagent/internal/store"
	"github.com/rtcagent/rtcagent/internal/tools"
)

// errDone means the item needs no more work (it was deleted in the same transaction).
var errDone = errors.New("item done")

// begin moves the item's turn to running, or finds it already running (the previous
// owner died mid-step) and cleans up after it. It returns errDone when there is
// nothing to run.
func (r *Runner) begin(tx store.Tx, item *store.InboxItem) (*protocol.Turn, error) {
	done := func() (*protocol.Turn, error) {
		if err := tx.InboxDelete(item.ID); err != nil {
			return nil, err
		}
		return nil, errDone
	}
	t, err := tx.TurnGet(item.TurnID)
	if errors.Is(err, store.ErrNotFound) {
		return done()
	}
	if err != nil {
		return nil, err
	}
	s, err := tx.SessionGet(t.SessionID)
	if err != nil {
		return nil, err
	}
	switch {
	case protocol.TurnTerminal(t.Status):
		return done()
	case t.Status == protocol.TurnRunning:
		return t, r.interruptStreaming(tx, t)
	case item.Kind == core.KindTurnStart && t.Status == protocol.TurnQueued:
		if s.ActiveTurnID != "" && s.ActiveTurnID != t.ID {
			return done() // queued behind the active turn, which queues it again when it ends
		}
		if err := startTurn(tx, t, s); err != nil {
			return nil, err
		}
		return t, nil
	case item.Kind == core.KindTurnResume && t.Status == protocol.TurnWaiting:
		if _, err := tx.CheckpointGet(t.ID); errors.Is(err, store.ErrNotFound) {
			terr := &protocol.TurnError{Category: "checkpoint_expired", Message: "The turn waited longer than its checkpoint is kept and was ended. Send the message again to continue."}
			if err := addErrorMessage(tx, t, terr); err != nil {
				return nil, err
			}
			if err := core.EndTurn(tx, t, protocol.TurnFailed, terr, "cancelled: checkpoint expired"); err != nil {
				return nil, err
			}
			return done()
		} else if err != nil {
			return nil, err
		}
		t.Status = protocol.TurnRunning
		return t, core.EmitTurn(tx, t, protocol.TurnWaiting)
	}
	return done() // a stale item (such as a start for a turn already waiting)
}

func startTurn(tx store.Tx, t *protocol.Turn, s *protocol.Session) error {
	t.Status = protocol.TurnRunning
	if err := core.EmitTurn(tx, t, protocol.TurnQueued); err != nil {
		return err
	}
	s.ActiveTurnID = t.ID
	return core.EmitSession(tx, s, protocol.UpdSessionUpdated)
}

// interruptStreaming closes messages a dead owner left streaming, keeping the text
// that reached the partial buffer (in a cluster it outlives the node).
func (r *Runner) interruptStreaming(tx store.Tx, t *protocol.Turn) error {
	msgs, err := tx.MessageList(t.SessionID, store.Page{Limit: 1 << 30})
	if err != nil {
		return err
	}
	for i := range msgs {
		m := &msgs[i]
		if m.TurnID == t.ID && m.Status == protocol.MessageStreaming {
			m.Status = protocol.MessageInterrupted
			if text, _, ok := r.Partial(m.ID); ok {
				m.Text = text
				_ = r.parts.Drop(context.Background(), m.ID)
			}
			if err := core.EmitMessage(tx, m, protocol.MessageStreaming, ""); err != nil {
				return err
			}
		}
	}
	return nil
}

// runSteps calls the model until the turn suspends, completes or fails.
func (r *Runner) runSteps(ctx context.Context, o *owner, item *store.InboxItem, t *protocol.Turn) error {
	for {
		if t.Step >= r.cfg.Limits.StepLimit {
			terr := &protocol.TurnError{Category: "step_limit", Message: fmt.Sprintf("The turn stopped after %d model steps, the limit for one turn. Send a message to continue.", t.Step)}
			return r.fail(ctx, o, item, t, terr)
		}
		var sess *protocol.Session
		var tr agent.Transcript
		var agentMD string
		err := r.cfg.Store.Read(ctx, func(tx store.Tx) error {
			var err error
			if sess, err = tx.SessionGet(t.SessionID); err != nil {
				return err
			}
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
		suspended, err := r.commitStep(ctx, o, item, t, sess.WorkMode, set, out, tr)
		if err != nil || suspended {
			return err
		}
	}
}

// streamWithRetry runs a model step, retrying transient provider errors with
// exponential backoff as long as nothing has streamed yet (a retry after text was
// shown would show it twice).
func (r *Runner) streamWithRetry(ctx context.Context, o *owner, t *protocol.Turn, req *llm.Request, role string) (*stepOutput, error) {
	wait := r.cfg.RetryBackoff
	for attempt := 0; ; attempt++ {
		started := time.Now()
		out, err := r.stream(ctx, o, t, req, role)
		metricStepSeconds.Observe(time.Since(started).Seconds())
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

// commitStep stores the step's final message and its RTCs. It reports whether the
// turn ended or suspended (true) or should take another step (false).
func (r *Runner) commitStep(ctx context.Context, o *owner, item *store.InboxItem, t *protocol.Turn, mode string,
	set *tools.Set, out *stepOutput, tr agent.Transcript) (bool, error) {
	defer r.dropPartial(out)
	r.price(&out.usage)
	stop := false
	err := r.writeItem(ctx, o, item, func(tx store.Tx, finish func() error) error {
		stop = false
		cur, err := tx.TurnGet(t.ID)
		if err != nil {
			return err
		}
		if cur.Status != protocol.TurnRunning {
			stop = true // stopped meanwhile: keep what streamed, run nothing
			return r.closeInterrupted(tx, item, out)
		}
		*t = *cur
		msg, err := finalMessage(tx, t, out, r.cfg.Model.Name())
		if err != nil {
			return err
		}
		t.Step++
		t.Usage.Add(out.usage)
		if out.usage.InputTokens > 0 {
			t.ContextTokens = out.usage.InputTokens
		}
		if len(out.calls) == 0 {
			stop = true
			if err := core.EndTurn(tx, t, protocol.TurnCompleted, nil, ""); err != nil {
				return err
			}
			return finish()
		}
		rtcs := agent.PlanRTCs(agent.PlanInput{Calls: out.calls, Tools: set, WorkMode: mode, Limits: r.cfg.Limits, Step: t.Step,
			FirstSeq: countTurnRTCs(tr, t.ID) + 1, SessionID: t.SessionID, TurnID: t.ID, UserID: t.UserID, MessageID: msg.ID, NewID: core.NewID})
		var delivered *protocol.RTC
		for i := range rtcs {
			rc := &rtcs[i]
			if rc.Status == protocol.RTCQueued && delivered == nil {
				delivered = rc
				err = core.Deliver(tx, rc, "")
			} else {
				err = core.EmitRTC(tx, rc, "")
			}
			if err != nil {
				return err
			}
		}
		if delivered == nil {
			return core.EmitTurn(tx, t, protocol.TurnRunning) // every call ended at once: next step
		}
		stop = true
		if err := saveCheckpoint(tx, t, msg, out.calls, r.cfg.Model.Name(), checkpointTTL(rtcs)); err != nil {
			return err
		}
		t.Status = protocol.TurnWaiting
		if err := core.EmitTurn(tx, t, protocol.TurnRunning); err != nil {
			return err
		}
		return finish()
	})
	return stop, err
}

// finalMessage writes the step's assistant message in its final state, creating it
// when no text was streamed.
func finalMessage(tx store.Tx, t *protocol.Turn, out *stepOutput, model string) (*protocol.Message, error) {
	calls := make([]protocol.ToolCall, len(out.calls))
	for i, c := range out.calls {
		calls[i] = protocol.ToolCall{ID: c.ID, Name: c.Name, Arguments: c.Arguments}
		if !json.Valid(c.Arguments) {
			s, _ := json.Marshal(string(c.Arguments))
			calls[i].Arguments = s
		}
	}
	usage := out.usage
	if out.msg != nil {
		m := out.msg
		m.Text, m.ToolCalls, m.Status, m.Usage = out.text.String(), calls, protocol.MessageComplete, &usage
		return m, core.EmitMessage(tx, m, protocol.MessageStreaming, "")
	}
	seq, err := tx.MessageMaxSeq(t.SessionID)
	if err != nil {
		return nil, err
	}
	m := &protocol.Message{ID: core.NewID(), SessionID: t.SessionID, TurnID: t.ID, UserID: t.UserID, Seq: seq + 1,
		Role: protocol.RoleAssistant, ToolCalls: calls, Status: protocol.MessageComplete, Model: model, Usage: &usage}
	return m, core.EmitMessage(tx, m, "", "")
}

// checkpointGrace is how long a checkpoint outlives the last possible deadline of
// its step, so a timeout always finds the checkpoint it resumes from.
const checkpointGrace = time.Hour

// checkpointTTL is the longest the step can wait: its calls run one after another,
// each with its own budget from its delivery.
func checkpointTTL(rtcs []protocol.RTC) time.Duration {
	d := checkpointGrace
	for _, r := range rtcs {
		if !protocol.RTCTerminal(r.Status) {
			d += time.Duration(r.TimeoutMS) * time.Millisecond
		}
	}
	return d
}

// saveCheckpoint writes the turn's checkpoint with the given time to live.
func saveCheckpoint(tx store.Tx, t *protocol.Turn, msg *protocol.Message, calls []llm.ToolCall, model string, ttl time.Duration) error {
	cp := agent.Checkpoint{Version: agent.CheckpointVersion, TurnID: t.ID, Step: t.Step, MessageID: msg.ID, Model: model, SavedAt: tx.Now()}
	for _, c := range calls {
		cp.ToolCallIDs = append(cp.ToolCallIDs, c.ID)
	}
	data, err := json.Marshal(cp)
	if err != nil {
		return err
	}
	return tx.CheckpointPut(&store.Checkpoint{TurnID: t.ID, Data: data, ExpiresAt: tx.Now().Add(ttl)})
}

func countTurnRTCs(tr agent.Transcript, turnID string) int {
	n := 0
	for _, r := range tr.RTCs {
		if r.TurnID == turnID {
			n++
		}
	}
	return n
}

// fail ends the turn with a visible error message and drops the item.
func (r *Runner) fail(ctx context.Context, o *owner, item *store.InboxItem, t *protocol.Turn, terr *protocol.TurnError) error {
	return r.write(ctx, o, func(tx store.Tx) error {
		if err := tx.InboxDelete(item.ID); err != nil {
			return err
		}
		cur, err := tx.TurnGet(t.ID)
		if err != nil || protocol.TurnTerminal(cur.Status) {
			return err
		}
		if err := addErrorMessage(tx, cur, terr); err != nil {
			return err
		}
		return core.EndTurn(tx, cur, protocol.TurnFailed, terr, "cancelled: the turn failed")
	})
}
