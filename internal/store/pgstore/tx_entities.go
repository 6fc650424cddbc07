package pgstore

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/rtcagent/rtcagent/internal/protocol"
	"github.com/rtcagent/rtcagent/internal/store"
)

// SessionGet in a write transaction first locks the user's stream: every write of
// a session happens under that lock (EmitSession assigns its offset), so the
// session read here is the one this transaction overwrites, and no other writer
// changes it before the commit. Under READ COMMITTED a read without the lock
// could be older than the lock's holder's commit, and writing it back would undo
// that change (a turn ended, a session deleted).
//
// Unless the transaction holds the lock already, the lock is taken first, found
// through the session (its user never changes), and the session read by the
// next statement, after the lock: two statements in one exchange. Read under
// the lock, the session is read once per transaction (store.RowCache).
func (t *tx) SessionGet(id string) (*protocol.Session, error) {
	if data, ok := t.Rows.Get("session", id); ok && t.Writable {
		return decodeRow[protocol.Session](t.decoded, "session", id, data)
	}
	data, err := t.sessionData(id)
	if err != nil {
		return new(protocol.Session), err
	}
	if t.Writable {
		t.Rows.Put("session", id, data)
	}
	return decodeRow[protocol.Session](t.decoded, "session", id, data)
}

// sessionData reads the session's data, in a write transaction under its
// user's stream lock.
func (t *tx) sessionData(id string) ([]byte, error) {
	var data []byte
	if t.Writable && len(t.locked) == 0 && t.failed == nil {
		l := t.lockThrough("sessions s", "s.id = $1", id)
		if err := t.flush(); err != nil {
			return nil, err
		}
		if t.holdLocked(l) && l.session != nil {
			return l.session, nil
		}
		// No session, or (not expected) no stream row yet: the general path.
	}
	const sel = `SELECT user_id, data FROM sessions WHERE id = $1`
	var userID string
	err := t.queryRow(sel, id).Scan(&userID, &data)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, store.ErrNotFound
	}
	if err != nil {
		return nil, err
	}
	if _, held := t.locked[userID]; t.Writable && !held {
		if _, err := t.lockStream(userID); err != nil {
			return nil, err
		}
		if err := t.queryRow(store.SQLSessionGet, id).Scan(&data); err != nil {
			return nil, err
		}
	}
	return data, nil
}

// SessionUpdate is checked by the server (pipeline.go): every writer of a
// session reads it under its user's stream lock first, so it is gone only when
// something is amiss, and the transaction then fails with store.ErrNotFound.
// It waits to go with the transaction's next statement.
func (t *tx) SessionUpdate(s *protocol.Session) error {
	data, _ := json.Marshal(s)
	err := t.laterCheck(`WITH u AS (UPDATE sessions SET data = $2 WHERE id = $1 RETURNING 1)
		SELECT CASE WHEN EXISTS (SELECT 1 FROM u) THEN true ELSE rtcagent_fail('RA404', 'update sessions ' || $1 || ': not found') END`,
		s.ID, store.Text(data))
	if err != nil {
		return err
	}
	t.Rows.Put("session", s.ID, data)
	t.wroteRows(s.UserID)
	t.Batch.Sent(s, data)
	return wrote(t, "session", s.ID, data, s)
}

// SessionInsert is store.Shared's, noted as a write of its user's rows.
func (t *tx) SessionInsert(s *protocol.Session) error {
	t.wroteRows(s.UserID)
	if err := t.Shared.SessionInsert(s); err != nil {
		return err
	}
	data, _ := t.Rows.Get("session", s.ID)
	return wrote(t, "session", s.ID, data, s)
}

// TurnInsert is store.Shared's, and notes the turn's seq as its session's
// highest, which TurnMaxSeq then answers without asking.
func (t *tx) TurnInsert(tr *protocol.Turn) error {
	if err := t.Shared.TurnInsert(tr); err != nil {
		return err
	}
	t.turnSeqs.wrote(tr.SessionID, tr.Seq)
	t.wroteRows(tr.UserID)
	data, _ := t.Rows.Get("turn", tr.ID)
	return wrote(t, "turn", tr.ID, data, tr)
}

// TurnGet reads a turn once per transaction when it was read (or written)
// under its user's stream lock (store.RowCache).
func (t *tx) TurnGet(id string) (*protocol.Turn, error) {
	if data, ok := t.Rows.Get("turn", id); ok && t.Writable {
		return decodeRow[protocol.Turn](t.decoded, "turn", id, data)
	}
	var data []byte
	err := t.queryRow(store.SQLTurnGet, id).Scan(&data)
	if errors.Is(err, pgx.ErrNoRows) {
		return new(protocol.Turn), store.ErrNotFound
	}
	if err != nil {
		return new(protocol.Turn), err
	}
	tr, err := decodeRow[protocol.Turn](t.decoded, "turn", id, data)
	if err != nil {
		return tr, err
	}
	if _, held := t.locked[tr.UserID]; held && t.Writable {
		t.Rows.Put("turn", id, data)
	}
	return tr, nil
}

// TurnUpdate is a compare-and-set the server checks (casUpdate): it waits to
// go with the transaction's next statement.
func (t *tx) TurnUpdate(tr *protocol.Turn, expectStatus string) error {
	sent, data, _ := tr.Encode()
	if err := t.casUpdate("turns", "status = $2, data = $3", tr.ID, tr.Status, store.Text(data), expectStatus); err != nil {
		return err
	}
	t.Rows.Put("turn", tr.ID, data)
	t.Batch.Sent(tr, sent)
	t.wroteRows(tr.UserID)
	return wrote(t, "turn", tr.ID, data, tr)
}

// maxSeq is read without a lock: a concurrent transaction may insert the same
// MAX+1; the unique index refuses the second and Write runs it again (retryable).
func (t *tx) maxSeq(table, sessionID string) (int64, error) {
	var n int64
	err := t.queryRow(store.MaxSeqSQL(table), sessionID).Scan(&n)
	return n, err
}

func (t *tx) TurnMaxSeq(sessionID string) (int64, error) {
	if n, ok := t.turnSeqs[sessionID]; ok {
		return n, nil
	}
	return t.maxSeq("turns", sessionID)
}

func (t *tx) MessageInsert(m *protocol.Message, clientID string) error {
	t.wroteRows(m.UserID)
	data, _ := json.Marshal(m)
	err := t.insertMessage(m, clientID, data)
	if err == nil {
		t.Batch.Sent(m, data)
	}
	return err
}

func (t *tx) insertMessage(m *protocol.Message, clientID string, data []byte) error {
	t.seqs.wrote(m.SessionID, m.Seq)
	var cid any // NULL: no idempotency key
	if clientID != "" {
		cid = clientID
		if t.guessNewClientID(m, clientID, data) {
			return nil
		}
	} else {
		// Without a key nothing can be a duplicate: sent with the next statement.
		err := t.later(nil, `INSERT INTO messages (id, session_id, user_id, seq, status, client_id, data)
			VALUES ($1, $2, $3, $4, $5, NULL, $6)`, m.ID, m.SessionID, m.UserID, m.Seq, m.Status, store.Text(data))
		if err != nil {
			return fmt.Errorf("insert message: %w", err)
		}
		return nil
	}
	// ON CONFLICT on the client-id index instead of catching 23505: a failed
	// statement would abort the whole transaction, while the interface (like
	// SQLite) lets the caller go on after ErrDuplicate. A concurrent insert of the
	// same key is waited for: when it commits this one does nothing, when it
	// rolls back this one inserts.
	tag, err := t.exec(`INSERT INTO messages (id, session_id, user_id, seq, status, client_id, data)
		VALUES ($1, $2, $3, $4, $5, $6, $7)
		ON CONFLICT (user_id, client_id) WHERE client_id IS NOT NULL DO NOTHING`,
		m.ID, m.SessionID, m.UserID, m.Seq, m.Status, cid, store.Text(data))
	if err != nil {
		return fmt.Errorf("insert message: %w", err)
	}
	if tag.RowsAffected() == 0 {
		return store.ErrDuplicate
	}
	if t.clientMsgs != nil {
		t.clientMsgs[clientKey(m.UserID, clientID)] = data
	}
	return nil
}

// MessageByClientID answers from a prefetch (Prefetch.ClientID) when it
// stood, and from the store otherwise.
func (t *tx) MessageByClientID(userID, clientID string) (*protocol.Message, error) {
	data, ok := t.clientMsgs[clientKey(userID, clientID)]
	if !ok {
		return t.Shared.MessageByClientID(userID, clientID)
	}
	if data == nil {
		return nil, store.ErrNotFound
	}
	var m protocol.Message
	return &m, json.Unmarshal(data, &m)
}

func (t *tx) MessageMaxSeq(sessionID string) (int64, error) {
	if n, ok := t.seqs[sessionID]; ok {
		return n, nil
	}
	return t.maxSeq("messages", sessionID)
}

// MessageLastByRole walks the session's messages backwards on the (session, seq)
// index; summaries are frequent in the sessions that have them, so the walk is short.
func (t *tx) MessageLastByRole(sessionID, role string) (*protocol.Message, error) {
	var m protocol.Message
	return &m, t.getJSON(&m, `SELECT data FROM messages WHERE session_id = $1 AND status = $2 AND data::jsonb->>'role' = $3
		ORDER BY seq DESC LIMIT 1`, sessionID, protocol.MessageComplete, role)
}

// MessageUpdate is a compare-and-set the server checks (casUpdate): it waits
// to go with the transaction's next statement.
func (t *tx) MessageUpdate(m *protocol.Message, expectStatus string) error {
	t.wroteRows(m.UserID)
	data, _ := json.Marshal(m)
	err := t.casUpdate("messages", "status = $2, data = $3", m.ID, m.Status, store.Text(data), expectStatus)
	if err == nil {
		t.Batch.Sent(m, data)
	}
	return err
}
