package session

import (
	"context"
	"errors"
	"strings"

	"github.com/rtcagent/rtcagent/internal/agent"
	"github.com/rtcagent/rtcagent/internal/core"
	"github.com/rtcagent/rtcagent/internal/llm"
	"github.com/rtcagent/rtcagent/internal/protocol"
	"github.com/rtcagent/rtcagent/internal/store"
)

// stepOutput is what one model step produced, bounded as it entered: text past
// the limit and arguments past theirs are not kept (see admitText and
// agent.AdmitCall).
type stepOutput struct {
	msg      *protocol.Message // the streaming message, created at the first text chunk
	text     strings.Builder   // the text kept
	produced int               // bytes of text the model produced
	seq      int64             // Live seq of the last delta
	calls    []llm.ToolCall
	argBytes int // bytes of arguments kept in calls
	usage    protocol.Usage
	previews callPreviews // calls being written (Live)
}

// cutNoteRoom is room kept under the text limit for the note of a cut.
const cutNoteRoom = 64

// admitText keeps what fits of a text chunk under limit, less room for the note,
// and returns it (empty once the text is full).
func (o *stepOutput) admitText(s string, limit int) string {
	if o.produced > o.text.Len() { // cut already: the rest is not kept
		o.produced += len(s)
		return ""
	}
	o.produced += len(s)
	s = protocol.Prefix(s, max(limit-cutNoteRoom-o.text.Len(), 0))
	o.text.WriteString(s)
	return s
}

// finalText is the step's text as stored: what was kept, and a note when the
// model produced more.
func (o *stepOutput) finalText() string {
	if o.produced <= o.text.Len() {
		return o.text.String()
	}
	return o.text.String() + protocol.CutNote(o.produced-o.text.Len())
}

// dropPartial forgets the partial text of a step's message once a commit closed
// the message: err is the outcome of the write that closes it. When that write
// may have left the message streaming (the lease was lost, the store failed), the
// text stays for whoever closes it next (the next owner, a retry).
func (r *Runner) dropPartial(o *stepOutput, err error) {
	if o == nil || o.msg == nil {
		return
	}
	if err == nil || errors.Is(err, errReleased) || errors.Is(err, store.ErrConflict) {
		r.DropPartials([]string{o.msg.ID})
	}
}

// dropClosed settles the partial text of the messages a write closed, once it
// committed: err is the write's outcome.
func (r *Runner) dropClosed(ids []string, err error) {
	if err == nil || errors.Is(err, errReleased) {
		r.SettlePartials(ids)
	}
}

// DropPartials forgets the partial text of messages a commit closed with their
// whole text.
func (r *Runner) DropPartials(ids []string) {
	for _, id := range ids {
		ctx, cancel := context.WithTimeout(context.Background(), partialWait)
		err := r.parts.Drop(ctx, id)
		cancel()
		if err != nil {
			r.log.Warn("drop partial text", "message", id, "err", err)
		}
	}
}

// errStopped: the turn was stopped while the model streamed.
var errStopped = errors.New("turn stopped")

// stream runs one model step. The first text chunk creates the message (of the
// given role) on the Topic channel; every chunk goes to the Live channel with its
// seq and into the partial buffer; the caller writes the final message.
func (r *Runner) stream(ctx context.Context, o *owner, t *protocol.Turn, req *llm.Request, role string) (*stepOutput, error) {
	tctx, cancel := context.WithCancel(ctx)
	defer cancel()
	defer r.cancels.Add(t.ID, cancel)()

	out := &stepOutput{}
	s, err := r.cfg.Model.Stream(tctx, req)
	if err != nil {
		return out, stopOr(ctx, tctx, err)
	}
	defer s.Close()
	for s.Next() {
		ev := s.Current()
		switch ev.Kind {
		case llm.EventText:
			text := out.admitText(ev.Text, r.cfg.Limits.ModelTextBytes)
			if text == "" {
				continue
			}
			if out.msg == nil {
				if err := r.createStreaming(ctx, o, t, out, role); err != nil {
					return out, err
				}
			}
			out.seq++
			if err := r.parts.Append(ctx, out.msg.ID, out.seq, text); err != nil {
				r.log.Warn("buffer partial text", "err", err) // only mid-stream joiners miss it
			}
			d := protocol.Delta{Type: "message.delta", SessionID: t.SessionID, MessageID: out.msg.ID, Seq: out.seq, Kind: "text", Delta: text}
			if err := r.cfg.Live.PublishDelta(t.UserID, d); err != nil {
				r.log.Warn("live publish", "err", err) // Live may lose chunks; the final message is on Topic
			}
		case llm.EventToolCallDelta:
			if role == protocol.RoleAssistant { // a summary's calls are never made
				r.previewCall(t, out, ev.Delta)
			}
		case llm.EventToolCall:
			r.flushPreviews(t, out) // the call is whole: what it held back goes
			if agent.StepCallsFull(r.cfg.Limits, len(out.calls)) {
				continue // past the step's calls: the call kept last says so
			}
			c := agent.AdmitCall(ev.ToolCall, r.cfg.Limits, out.argBytes, len(out.calls))
			out.calls = append(out.calls, c)
			out.argBytes += len(c.Arguments)
		case llm.EventUsage:
			if ev.Usage.InputTokens > 0 {
				out.usage.InputTokens = ev.Usage.InputTokens
			}
			if ev.Usage.OutputTokens > 0 {
				out.usage.OutputTokens = ev.Usage.OutputTokens
			}
		}
	}
	r.flushPreviews(t, out)
	if err := s.Err(); err != nil {
		return out, stopOr(ctx, tctx, err)
	}
	if tctx.Err() != nil {
		return out, stopOr(ctx, tctx, tctx.Err())
	}
	return out, nil
}

// stopOr classifies a stream error: the drain ending (lease lost, shutdown) wins,
// then a stop of the turn, else the model's error.
func stopOr(drainCtx, turnCtx context.Context, err error) error {
	if drainCtx.Err() != nil {
		return drainCtx.Err()
	}
	if turnCtx.Err() != nil {
		return errStopped
	}
	return err
}

func (r *Runner) createStreaming(ctx context.Context, o *owner, t *protocol.Turn, out *stepOutput, role string) error {
	return r.fenced(ctx, o, func(tx store.Tx) error {
		tx.Prefetch(store.Prefetch{Turn: t.ID, MessageSeq: t.SessionID})
		_, cur, err := lockTurn(tx, t)
		if err != nil {
			return err
		}
		if cur.Status != protocol.TurnRunning {
			return errStopped // a stop closed the turn's messages; none may open after it
		}
		seq, err := tx.MessageMaxSeq(t.SessionID)
		if err != nil {
			return err
		}
		m := &protocol.Message{ID: core.NewID(), SessionID: t.SessionID, TurnID: t.ID, UserID: t.UserID, Seq: seq + 1,
			Role: role, Status: protocol.MessageStreaming, Model: r.cfg.Model.Name()}
		if err := core.EmitMessage(tx, m, "", ""); err != nil {
			return err
		}
		out.msg = m
		return nil
	})
}

// streamFailed ends a step whose stream did not complete.
func (r *Runner) streamFailed(ctx context.Context, o *owner, item *store.InboxItem, t *protocol.Turn, out *stepOutput, err error) error {
	if ctx.Err() != nil || errors.Is(err, store.ErrLeaseLost) {
		return err // the next owner recovers the turn, with the text streamed so far
	}
	if errors.Is(err, errStopped) {
		werr := r.fenced(ctx, o, func(tx store.Tx) error { return r.closeInterrupted(tx, item, out) })
		r.dropPartial(out, werr)
		return werr
	}
	me := llm.AsError(err)
	r.log.Warn("model step failed", "turn", t.ID, "err", err)
	terr := &protocol.TurnError{Category: "model_error", Message: modelErrorText(me), Retryable: me.Retryable}
	werr := r.fenced(ctx, o, func(tx store.Tx) error { return r.interruptMsg(tx, out) })
	r.dropPartial(out, werr)
	if werr != nil {
		return werr
	}
	return r.fail(ctx, o, item, t, terr)
}

// closeInterrupted keeps what streamed of a stopped step and drops the item.
func (r *Runner) closeInterrupted(tx store.Tx, item *store.InboxItem, out *stepOutput) error {
	if err := r.interruptMsg(tx, out); err != nil {
		return err
	}
	return tx.InboxDelete(*item)
}

// interruptMsg closes the step's streaming message with what streamed of it,
// unless it ended meanwhile (a stop closed it): it is read under its user's
// stream lock, which every writer of a message holds, so the update after it
// cannot lose a race.
func (r *Runner) interruptMsg(tx store.Tx, out *stepOutput) error {
	if out == nil || out.msg == nil {
		return nil
	}
	m := out.msg
	if _, err := tx.NextOffset(m.UserID); err != nil {
		return err
	}
	cur, err := tx.MessageGet(m.ID)
	if errors.Is(err, store.ErrNotFound) {
		return nil
	}
	if err != nil || cur.Status != protocol.MessageStreaming {
		return err
	}
	m.Text, m.Status = out.finalText(), protocol.MessageInterrupted
	return core.EmitMessage(tx, m, protocol.MessageStreaming, "")
}

// modelErrorText explains a model failure to the user.
func modelErrorText(me *llm.Error) string {
	switch me.Category {
	case llm.CategoryRateLimited:
		return "The model provider is rate limiting requests. Try again in a moment."
	case llm.CategoryUnavailable:
		return "The model provider is unavailable right now. Try again in a moment."
	case llm.CategoryAuth:
		return "The server could not authenticate with the model provider. Check its API key."
	case llm.CategoryContextLength:
		return "The conversation is too long for the model's context. Start a new session or compact this one."
	case llm.CategoryInvalid:
		return "The model provider refused the request."
	}
	return "The model could not answer."
}
