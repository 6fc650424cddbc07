package agui

import (
	"context"
	"errors"
	"slices"

	"github.com/rtcagent/rtcagent/internal/protocol"
	"github.com/rtcagent/rtcagent/internal/store"
)

// window is how many of a thread's latest messages a run reads and a
// MESSAGES_SNAPSHOT carries.
const window = 200

// state is what the store holds of a thread before a run acts.
type state struct {
	session  *protocol.Session // nil: the thread has no session yet
	messages []protocol.Message
	rtcs     map[string][]protocol.RTC // by the message that asked for them, in order
	open     []protocol.RTC            // the thread's calls not ended
	active   *protocol.Turn
	// sent is the run's new message when it was sent before (a run sent
	// again), turn that message's turn.
	sent *protocol.Message
	turn *protocol.Turn
}

// readState reads, in one read transaction, a thread's session, its latest
// messages with their calls, its open calls, its active turn, and the message
// of messageClientID (if not "") with its turn.
func readState(ctx context.Context, st store.Store, userID, sessionID, messageClientID string) (*state, error) {
	s := &state{rtcs: map[string][]protocol.RTC{}}
	err := st.Read(ctx, func(tx store.Tx) error {
		sess, err := tx.SessionGet(sessionID)
		if errors.Is(err, store.ErrNotFound) {
			return nil
		} else if err != nil {
			return err
		}
		if sess.UserID != userID {
			return nil // a thread session id names one user's session only
		}
		s.session = sess
		top, err := tx.MessageMaxSeq(sessionID)
		if err != nil {
			return err
		}
		if s.messages, err = tx.MessageList(sessionID, store.Page{After: max(0, top-window), Limit: window}); err != nil {
			return err
		}
		// The calls of the turns whose messages asked for some, and of the
		// views' own turns among them: one indexed read per such turn (a turn
		// of text only has none).
		turns, err := s.turnsWithCalls(tx)
		if err != nil {
			return err
		}
		for _, id := range turns {
			rs, err := tx.RTCListByTurn(id)
			if err != nil {
				return err
			}
			for _, r := range rs {
				s.rtcs[r.MessageID] = append(s.rtcs[r.MessageID], r)
			}
		}
		open, err := tx.RTCListOpenByUser(userID, maxOpen)
		if err != nil {
			return err
		}
		for _, r := range open {
			if r.SessionID == sessionID {
				s.open = append(s.open, r)
			}
		}
		if sess.ActiveTurnID != "" {
			if s.active, err = tx.TurnGet(sess.ActiveTurnID); err != nil {
				return err
			}
		}
		if messageClientID == "" {
			return nil
		}
		if s.sent, err = tx.MessageByClientID(userID, messageClientID); errors.Is(err, store.ErrNotFound) {
			s.sent = nil
			return nil
		} else if err != nil {
			return err
		}
		s.turn, err = tx.TurnGet(s.sent.TurnID)
		return err
	})
	return s, err
}

// turnsWithCalls returns the turns of the messages read that asked for
// calls, and the turns of kind app after the first of those: a view's calls
// after its turn are turns of their own, with no message, and of the
// message that showed the view. It reads the session's latest twice window
// turns at most (a view's calls after its turn are not bounded per view,
// only by the user's rate).
func (s *state) turnsWithCalls(tx store.Tx) ([]string, error) {
	var ids []string
	seen := map[string]bool{}
	for _, m := range s.messages {
		if len(m.ToolCalls) > 0 && !seen[m.TurnID] {
			seen[m.TurnID] = true
			ids = append(ids, m.TurnID)
		}
	}
	if len(ids) == 0 {
		return nil, nil
	}
	top, err := tx.TurnMaxSeq(s.session.ID)
	if err != nil {
		return nil, err
	}
	latest, err := tx.TurnList(s.session.ID, store.Page{After: max(0, top-2*window), Limit: 2 * window})
	if err != nil {
		return nil, err
	}
	// The first turn with calls is among them or before them all.
	after := !slices.ContainsFunc(latest, func(t protocol.Turn) bool { return t.ID == ids[0] })
	for _, t := range latest {
		if after && t.Kind == protocol.TurnKindApp {
			ids = append(ids, t.ID)
		}
		after = after || t.ID == ids[0]
	}
	return ids, nil
}

// maxOpen bounds the open calls of a user read at once.
const maxOpen = 1000

// openCall returns the thread's open call of id.
func (s *state) openCall(id string) (*protocol.RTC, bool) {
	for i := range s.open {
		if s.open[i].ID == id {
			return &s.open[i], true
		}
	}
	return nil, false
}

// shown reports whether a message is part of the conversation a client
// shows: the user's messages and the assistant's finished ones.
func shown(m *protocol.Message) bool {
	switch m.Role {
	case protocol.RoleUser:
		return true
	case protocol.RoleAssistant:
		return m.Status == protocol.MessageComplete || m.Status == protocol.MessageInterrupted
	}
	return false
}

// asked reports whether a call reached the client's view: delivered or ended
// (a call queued behind another is not shown yet).
func asked(r *protocol.RTC) bool { return r.Status != protocol.RTCQueued }

// conversation is the thread's user and assistant texts in order, as
// conversation() reads a client's messages.
func (s *state) conversation() []string {
	var c []string
	for i := range s.messages {
		m := &s.messages[i]
		if shown(m) && (m.Role == protocol.RoleUser || m.Text != "") {
			c = append(c, m.Role+"\x00"+m.Text)
		}
	}
	return c
}

// snapshot is the thread as AG-UI messages: each finished message, an
// assistant message with the calls it asked for that were shown, and a tool
// message for each call that ended.
func (s *state) snapshot() []outMessage {
	out := []outMessage{}
	for i := range s.messages {
		m := &s.messages[i]
		if !shown(m) {
			continue
		}
		om := outMessage{ID: m.ID, Role: m.Role, Content: m.Text}
		var results []outMessage
		for j := range s.rtcs[m.ID] {
			r := &s.rtcs[m.ID][j]
			if !asked(r) {
				continue
			}
			om.ToolCalls = append(om.ToolCalls, toolCall(r))
			if protocol.RTCTerminal(r.Status) {
				results = append(results, resultMessage(r))
			}
		}
		out = append(out, om)
		out = append(out, results...)
	}
	return out
}

func toolCall(r *protocol.RTC) ToolCall {
	return ToolCall{ID: r.ID, Type: "function", Function: FunctionCall{Name: r.ToolName, Arguments: string(r.Arguments)}}
}

// resultMessage is an ended call as a tool message.
func resultMessage(r *protocol.RTC) outMessage {
	m := outMessage{ID: resultID(r.ID), Role: "tool", ToolCallID: r.ID}
	if r.Status == protocol.RTCCompleted {
		m.Content = outputText(r.Output)
	} else {
		m.Error = resultError(r)
		m.Content = m.Error
	}
	return m
}

func resultID(rtcID string) string { return "result-" + rtcID }

// resultError says why a call did not complete.
func resultError(r *protocol.RTC) string {
	if r.Error != "" {
		return r.Error
	}
	return "the call ended " + r.Status
}
