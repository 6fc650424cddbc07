package session

import (
	"context"
	"encoding/json"

	"github.com/rtcagent/rtcagent/internal/agent"
	"github.com/rtcagent/rtcagent/internal/core"
	"github.com/rtcagent/rtcagent/internal/lifecycle"
	"github.com/rtcagent/rtcagent/internal/protocol"
	"github.com/rtcagent/rtcagent/internal/store"
	"github.com/rtcagent/rtcagent/internal/tools"
)

// lockTurn reads the session and the turn as the transaction writes over them,
// under the user's stream lock: the session comes first, and in a write
// transaction that read takes the lock and waits for the session's other
// writers (a stop, a work mode change), so neither changes before the commit.
func lockTurn(tx store.Tx, t *protocol.Turn) (*protocol.Session, *protocol.Turn, error) {
	s, err := tx.SessionGet(t.SessionID)
	if err != nil {
		return nil, nil, err
	}
	cur, err := tx.TurnGet(t.ID)
	return s, cur, err
}

// commitStep stores the step's final message and its RTCs. It reports whether the
// turn ended or suspended (true) or should take another step (false). The calls
// are planned with the work mode of the committing transaction: one switched
// while the model streamed applies to them.
func (r *Runner) commitStep(ctx context.Context, o *owner, item *store.InboxItem, t *protocol.Turn,
	set *tools.Set, out *stepOutput, tr agent.Transcript) (bool, error) {
	r.price(&out.usage)
	stop := false
	var closed []string // messages EndTurn closed besides the step's own
	err := r.fencedItem(ctx, o, item, func(tx store.Tx, finish func() error) error {
		stop, closed = false, nil
		want := store.Prefetch{Turn: t.ID}
		if out.msg == nil {
			want.MessageSeq = t.SessionID // finalMessage creates the message
		}
		if len(out.calls) == 0 {
			want.OpenRTCsOf = t.ID // the turn ends: EndTurn ends its open calls
		}
		tx.Prefetch(want)
		sess, cur, err := lockTurn(tx, t)
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
			if closed, err = lifecycle.EndTurn(tx, t, protocol.TurnCompleted, nil, "", nil); err != nil {
				return err
			}
			return finish()
		}
		waiting, err := lifecycle.CallTools(tx, sess, lifecycle.ToolStep{Turn: t, Message: msg, Calls: out.calls, Tools: set,
			Limits: r.cfg.Limits, Model: r.cfg.Model.Name(), FirstSeq: countTurnRTCs(tr, t.ID) + 1,
			TraceParent: func() string { return r.cfg.Tracer.ChildParent(t.TraceParent) }})
		if err != nil || !waiting {
			return err // !waiting: every call ended at once, the next step follows
		}
		stop = true
		return finish()
	})
	r.dropPartial(out, err)
	r.dropClosed(closed, err)
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
		m := new(protocol.Message)
		*m = *out.msg // a copy: the write's function may run again, from the streamed message
		m.Text, m.ToolCalls, m.Status, m.Usage = out.finalText(), calls, protocol.MessageComplete, &usage
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

func countTurnRTCs(tr agent.Transcript, turnID string) int {
	n := 0
	for _, r := range tr.RTCs {
		if r.TurnID == turnID {
			n++
		}
	}
	return n
}
