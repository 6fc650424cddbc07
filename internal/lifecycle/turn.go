package lifecycle

import (
	"errors"

	"github.com/rtcagent/rtcagent/internal/core"
	"github.com/rtcagent/rtcagent/internal/protocol"
	"github.com/rtcagent/rtcagent/internal/store"
)

// Live is the text streaming messages showed so far, read before the
// transaction that closes them. The text is kept outside the database while a
// message streams (the session runner's partial buffer, Redis in a cluster), and
// no transaction waits on another service: Partial must answer from memory.
type Live interface {
	Partial(messageID string) (text string, seq int64, ok bool)
}

// LiveText is a Live read ahead: message id → text.
type LiveText map[string]string

// Partial implements Live.
func (l LiveText) Partial(id string) (string, int64, bool) { s, ok := l[id]; return s, 0, ok }

// StartTurn moves queued turn t to running as its session's active turn.
// The worker calls it when the turn's start item comes up and s has no other
// active turn.
func StartTurn(tx store.Tx, t *protocol.Turn, s *protocol.Session) error {
	t.Status = protocol.TurnRunning
	if err := core.EmitTurn(tx, t, protocol.TurnQueued); err != nil {
		return err
	}
	s.ActiveTurnID = t.ID
	return core.EmitSession(tx, s, protocol.UpdSessionUpdated)
}

// EndTurn moves a turn to a terminal status (compare-and-set from its stored
// status), closes its streaming messages as interrupted with the text they showed
// (read from live, which may be nil), drops its checkpoint, fails its open RTCs
// with reason, marks the session idle, adds the turn's token usage to the session
// and queues the session's next turn if one waits. A message of an ended turn
// never stays streaming, whoever ends it (a stop, a failure, a give-up) and
// wherever its streamer is (a dead node's stream has no one to close it). It
// returns the ids of the messages it closed: the caller drops their partial text
// once the transaction committed (a dead streamer's is dropped by no one else).
func EndTurn(tx store.Tx, t *protocol.Turn, status string, terr *protocol.TurnError, reason string, live Live) ([]string, error) {
	prev := t.Status
	t.Status, t.Error, t.Checkpoint = status, terr, nil
	if err := core.EmitTurn(tx, t, prev); err != nil {
		return nil, err
	}
	closed, err := CloseStreaming(tx, t, live)
	if err != nil {
		return nil, err
	}
	if err := endTurnRest(tx, t, reason); err != nil {
		return nil, err
	}
	return closed, nil
}

// FailTurn ends turn t as failed with terr: a visible error message in its
// session, then EndTurn, whose open calls end with reason.
func FailTurn(tx store.Tx, t *protocol.Turn, terr *protocol.TurnError, reason string) ([]string, error) {
	seq, err := tx.MessageMaxSeq(t.SessionID)
	if err != nil {
		return nil, err
	}
	m := &protocol.Message{ID: core.NewID(), SessionID: t.SessionID, TurnID: t.ID, UserID: t.UserID, Seq: seq + 1,
		Role: protocol.RoleAssistant, Text: terr.Message, Status: protocol.MessageError, Error: terr}
	if err := core.EmitMessage(tx, m, "", ""); err != nil {
		return nil, err
	}
	return EndTurn(tx, t, protocol.TurnFailed, terr, reason, nil)
}

// ResumeDue reports whether waiting turn t may resume: every call of its
// step ended. A view's call (core.IsViewCall) runs beside the steps and holds
// back no resume. A resume item can be queued twice for one wait: a view's
// call that starts once the step's calls have ended, and ends before the turn
// resumed, queues another (endRTC sees no call left open); when it is taken,
// the next step's calls are open and it is not due.
func ResumeDue(tx store.Tx, t *protocol.Turn) (bool, error) {
	open, err := tx.RTCListOpenByTurn(t.ID)
	if err != nil {
		return false, err
	}
	for i := range open {
		if !core.IsViewCall(&open[i]) {
			return false, nil
		}
	}
	return true, nil
}

// Resume moves turn t, waiting with every call of its step ended, back to
// running, to take its next step from its checkpoint. A checkpoint that
// expired fails the turn instead (FailTurn, checkpoint_expired): resumed is
// false and closed are the messages EndTurn closed.
func Resume(tx store.Tx, t *protocol.Turn) (resumed bool, closed []string, err error) {
	if cp := t.Checkpoint; cp == nil || !cp.ExpiresAt.After(tx.Now()) {
		terr := &protocol.TurnError{Category: "checkpoint_expired", Message: "The turn waited longer than its checkpoint is kept and was ended. Send the message again to continue."}
		closed, err = FailTurn(tx, t, terr, "cancelled: checkpoint expired")
		return false, closed, err
	}
	t.Status = protocol.TurnRunning
	return true, nil, core.EmitTurn(tx, t, protocol.TurnWaiting)
}

// endTurnRest is EndTurn after the turn's messages: its calls, session and the
// next turn.
func endTurnRest(tx store.Tx, t *protocol.Turn, reason string) error {
	rtcs, err := tx.RTCListOpenByTurn(t.ID)
	if err != nil {
		return err
	}
	for i := range rtcs {
		r := &rtcs[i]
		was := r.Status
		r.Status, r.Error = protocol.RTCFailed, reason
		if err := EmitRTC(tx, r, was); err != nil {
			return err
		}
	}
	s, err := tx.SessionGet(t.SessionID)
	if err != nil {
		return err
	}
	if s.ActiveTurnID == t.ID || !t.Usage.Equal(protocol.Usage{}) {
		if s.ActiveTurnID == t.ID {
			s.ActiveTurnID = ""
		}
		s.Usage.Add(t.Usage)
		if t.ContextTokens > 0 {
			s.ContextTokens = t.ContextTokens
		}
		if err := core.EmitSession(tx, s, protocol.UpdSessionUpdated); err != nil {
			return err
		}
	}
	return QueueNextTurn(tx, t.SessionID)
}

// QueueNextTurn queues the start of the session's oldest queued turn, if any.
func QueueNextTurn(tx store.Tx, sessionID string) error {
	next, err := tx.TurnNextQueued(sessionID)
	if errors.Is(err, store.ErrNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	return tx.InboxInsert(&store.InboxItem{SessionID: sessionID, Kind: core.KindTurnStart, TurnID: next.ID})
}

// StopTurn stops the session's active turn, or its oldest queued turn when none is
// active. Its open RTCs end as failed ("cancelled"). A worker streaming the turn
// notices at its next write, which then fails. Like EndTurn it returns the ids of
// the messages it closed, whose partial text the caller drops after the commit.
func StopTurn(tx store.Tx, c core.Caller, sessionID string, live Live) (*protocol.Turn, []string, error) {
	s, err := core.SessionFor(tx, c, sessionID)
	if err != nil {
		return nil, nil, err
	}
	var t *protocol.Turn
	if s.ActiveTurnID != "" {
		t, err = tx.TurnGet(s.ActiveTurnID)
	} else {
		t, err = tx.TurnNextQueued(s.ID)
	}
	if errors.Is(err, store.ErrNotFound) {
		return nil, nil, protocol.Errorf(protocol.CodeConflict, "session %q has no running turn", sessionID)
	}
	if err != nil {
		return nil, nil, err
	}
	if protocol.TurnTerminal(t.Status) {
		return t, nil, nil
	}
	closed, err := EndTurn(tx, t, protocol.TurnStopped, nil, "cancelled: the user stopped the turn", live)
	if err != nil {
		return nil, nil, err
	}
	return t, closed, nil
}

// StopSession ends everything a closed or deleted session would still run: every
// turn queued behind the active one (stopped, before they could start) and the
// active turn (as StopTurn). It returns the id of the active turn it stopped, if
// any, and the messages it closed.
func StopSession(tx store.Tx, c core.Caller, s *protocol.Session, live Live, reason string) (string, []string, error) {
	for {
		q, err := tx.TurnNextQueued(s.ID)
		if errors.Is(err, store.ErrNotFound) {
			break
		}
		if err != nil {
			return "", nil, err
		}
		// A queued turn has no calls, checkpoint, usage or streaming message yet.
		q.Status = protocol.TurnStopped
		if err := core.EmitTurn(tx, q, protocol.TurnQueued); err != nil {
			return "", nil, err
		}
	}
	if s.ActiveTurnID == "" {
		return "", nil, nil
	}
	t, err := tx.TurnGet(s.ActiveTurnID)
	if err != nil || protocol.TurnTerminal(t.Status) {
		return "", nil, err
	}
	closed, err := EndTurn(tx, t, protocol.TurnStopped, nil, reason, live)
	return t.ID, closed, err
}

// CloseStreaming closes the turn's streaming messages as interrupted, with the
// text they showed so far as live read it ahead (live may be nil: the text is
// then the stored one). It returns their ids: once the transaction commits, not
// before (a rolled-back attempt would lose it), the caller settles their partial
// text (session.Runner.SettlePartials: what the buffer holds beyond live is
// written, then the buffer dropped).
func CloseStreaming(tx store.Tx, t *protocol.Turn, live Live) ([]string, error) {
	msgs, err := tx.MessagesStreaming(t)
	if err != nil {
		return nil, err
	}
	var closed []string
	for i := range msgs {
		m := &msgs[i]
		m.Status = protocol.MessageInterrupted
		if live != nil {
			if text, _, ok := live.Partial(m.ID); ok {
				m.Text = text
			}
		}
		if err := core.EmitMessage(tx, m, protocol.MessageStreaming, ""); err != nil {
			return nil, err
		}
		closed = append(closed, m.ID)
	}
	return closed, nil
}
