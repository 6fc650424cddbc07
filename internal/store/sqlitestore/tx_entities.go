package sqlitestore

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/rtcagent/rtcagent/internal/protocol"
	"github.com/rtcagent/rtcagent/internal/store"
)

// SessionGet reads a session once per write transaction (store.RowCache: the
// writer is alone, so what it read stays true until it writes).
func (t *tx) SessionGet(id string) (*protocol.Session, error) {
	return getRow[protocol.Session](t, "session", id, store.SQLSessionGet)
}

// SessionInsert inserts the session, kept decoded, whose highest seqs, inbox, streaming
// messages and queued turns are then known from the start: a new session
// has no message, turn or item.
func (t *tx) SessionInsert(s *protocol.Session) error {
	if err := t.Shared.SessionInsert(s); err != nil {
		return err
	}
	data, _ := t.Rows.Get("session", s.ID)
	t.wrote("session", s.ID, data, s)
	t.noteSeq("messages/"+s.ID, 0)
	t.noteSeq("turns/"+s.ID, 0)
	t.noteItems(s.ID, nil)
	t.noteStreaming(s.ID, nil)
	t.noteQueued(s.ID, nil)
	return nil
}

func (t *tx) SessionUpdate(s *protocol.Session) error {
	data, _ := json.Marshal(s)
	res, err := t.exec(`UPDATE sessions SET data = ? WHERE id = ?`, data, s.ID)
	if err = t.casResult(res, err, "sessions", s.ID); err == nil {
		t.Batch.Sent(s, data)
		t.wrote("session", s.ID, data, s)
	}
	return err
}

func (t *tx) TurnGet(id string) (*protocol.Turn, error) {
	return getRow[protocol.Turn](t, "turn", id, store.SQLTurnGet)
}

func (t *tx) TurnUpdate(tr *protocol.Turn, expectStatus string) error {
	sent, data, _ := tr.Encode()
	res, err := t.exec(`UPDATE turns SET status = ?, data = ? WHERE id = ? AND status = ?`, tr.Status, data, tr.ID, expectStatus)
	if err = t.casResult(res, err, "turns", tr.ID); err == nil {
		t.turnWritten(tr)
		t.Batch.Sent(tr, sent)
		t.wrote("turn", tr.ID, data, tr)
	}
	return err
}

func (t *tx) MessageInsert(m *protocol.Message, clientID string) error {
	data, _ := json.Marshal(m)
	var cid any
	if clientID != "" {
		cid = clientID
	}
	_, err := t.exec(`INSERT INTO messages (id, session_id, user_id, seq, status, client_id, data) VALUES (?, ?, ?, ?, ?, ?, ?)`,
		m.ID, m.SessionID, m.UserID, m.Seq, m.Status, cid, data)
	if err != nil && strings.Contains(err.Error(), "UNIQUE") && strings.Contains(err.Error(), "client_id") {
		return store.ErrDuplicate
	}
	if err != nil {
		return fmt.Errorf("insert message: %w", err)
	}
	t.raiseSeq("messages", m.SessionID, m.Seq)
	t.messageWritten(m, data)
	t.Batch.Sent(m, data)
	if t.notes != nil && clientID != "" {
		t.notes.keyUsed(m.UserID, clientID, data)
	}
	return nil
}

// MessageByClientID reads the message sent with the key. A prepared run
// (prepared.go) cannot read the table, so it takes a key it has not used
// itself for unused: the run holds only if it then inserts a message with
// that key, which the unique index refuses under the writer when the key was
// used after all (the write then runs again there and finds the message).
func (t *tx) MessageByClientID(userID, clientID string) (*protocol.Message, error) {
	if t.notes == nil {
		return t.Shared.MessageByClientID(userID, clientID)
	}
	var m protocol.Message
	data, used := t.notes.key(userID, clientID)
	if !used {
		return &m, store.ErrNotFound
	}
	return &m, json.Unmarshal(data, &m)
}

// MessageLastByRole walks the session's messages backwards on the (session, seq)
// index; summaries are frequent in the sessions that have them, so the walk is short.
func (t *tx) MessageLastByRole(sessionID, role string) (*protocol.Message, error) {
	var m protocol.Message
	return &m, t.getJSON(&m, `SELECT data FROM messages WHERE session_id = ? AND status = ? AND json_extract(data, '$.role') = ?
		ORDER BY seq DESC LIMIT 1`, sessionID, protocol.MessageComplete, role)
}

func (t *tx) MessageUpdate(m *protocol.Message, expectStatus string) error {
	data, _ := json.Marshal(m)
	res, err := t.exec(`UPDATE messages SET status = $2, data = $3 WHERE id = $1 AND status = $4`, m.ID, m.Status, data, expectStatus)
	if err = t.casResult(res, err, "messages", m.ID); err == nil {
		t.messageWritten(m, data)
		t.Batch.Sent(m, data)
	}
	return err
}
