package session

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/rtcagent/rtcagent/internal/core"
	"github.com/rtcagent/rtcagent/internal/lifecycle"
	"github.com/rtcagent/rtcagent/internal/protocol"
	"github.com/rtcagent/rtcagent/internal/store"
)

// A streaming message's text lives in the partial buffer (Redis in a cluster)
// until the message is closed. No store transaction waits on the buffer: the
// text is read ahead of a transaction that ends a turn from outside its worker
// (LiveText), and after any commit that closed messages, what the buffer holds
// beyond the text written is settled into them (SettlePartials). A stalled
// buffer so costs a stop at most two waits of partialWait, and never holds the
// user's stream lock, which every write of that user waits for.

// partialWait bounds each read or drop of the partial buffer.
const partialWait = time.Second

// LiveText reads, ahead of a transaction that may end the session's active
// turn (a stop, a close, a delete), the text its streaming messages showed so
// far. A message it could not read is closed with its stored text, and
// SettlePartials fills it in after the commit.
func (r *Runner) LiveText(ctx context.Context, sessionID string) lifecycle.Live {
	var ids []string
	err := r.cfg.Store.Read(ctx, func(tx store.Tx) error {
		ids = nil
		s, err := tx.SessionGet(sessionID)
		if err != nil || s.ActiveTurnID == "" {
			return err
		}
		t, err := tx.TurnGet(s.ActiveTurnID)
		if err != nil {
			return err
		}
		msgs, err := tx.MessagesStreaming(t)
		for _, m := range msgs {
			ids = append(ids, m.ID)
		}
		return err
	})
	if err != nil && !errors.Is(err, store.ErrNotFound) {
		r.log.Warn("read streaming messages", "session", sessionID, "err", err)
	}
	live := lifecycle.LiveText{}
	for _, id := range ids {
		if text, _, ok := r.Partial(id); ok {
			live[id] = text
		}
	}
	return live
}

// SettlePartials finishes the messages a committed transaction closed: when
// the buffer holds more of a message's text than the commit wrote (it was not
// read ahead, or more streamed since), that text is written to the message in
// a transaction of its own; then the buffer is dropped.
func (r *Runner) SettlePartials(ids []string) {
	for _, id := range ids {
		if text, _, ok := r.Partial(id); ok && text != "" {
			if err := r.settle(id, text); err != nil {
				r.log.Warn("write the partial text of a closed message", "message", id, "err", err)
				continue // kept for the buffer's lifetime; the message has its stored text
			}
		}
		r.DropPartials([]string{id})
	}
}

// settle writes text into closed message id when it extends what is stored.
func (r *Runner) settle(id, text string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	return r.cfg.Store.Write(ctx, func(tx store.Tx) error {
		m, err := tx.MessageGet(id)
		if errors.Is(err, store.ErrNotFound) {
			return nil
		}
		if err != nil {
			return err
		}
		if m.Status != protocol.MessageInterrupted || len(text) <= len(m.Text) || !strings.HasPrefix(text, m.Text) {
			return nil
		}
		m.Text = text
		return core.EmitMessage(tx, m, protocol.MessageInterrupted, "")
	})
}
