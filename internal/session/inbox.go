package session

import (
	"context"
	"errors"

	"github.com/rtcagent/rtcagent/internal/core"
	"github.com/rtcagent/rtcagent/internal/protocol"
	"github.com/rtcagent/rtcagent/internal/store"
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
