package store

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/rtcagent/rtcagent/internal/protocol"
)

// Driver is what a store's transaction does its own way for the operations
// both stores do alike (Shared): send a statement of sql.go, and pass a time
// or a JSON document as its schema keeps one.
type Driver interface {
	// Time is t as an argument of a statement: what the schema stores for a
	// time (TIMESTAMPTZ, Unix milliseconds).
	Time(t time.Time) any
	// JSON is a JSON document as an argument of a statement: what the schema
	// stores for one (text, bytes).
	JSON(data []byte) any
	// Exec sends a statement that returns no rows and returns how many rows it
	// changed.
	Exec(query string, args ...any) (int64, error)
	// Send sends a write whose answer the operation does not need: a store may
	// send it with its next statement, and a failure then fails the
	// transaction. It refuses in a read transaction.
	Send(query string, args ...any) error
	// GetJSON decodes the one row of query, a column of JSON, into v; ErrNotFound
	// when there is no row.
	GetJSON(v any, query string, args ...any) error
	// EachJSON calls fn with the JSON column of each row of query, in order,
	// and stops at fn's first error, which it returns.
	EachJSON(query string, args []any, fn func(data []byte) error) error
}

// Shared is what a transaction of either store holds and does alike: its
// state (TxState), and the operations of Tx that need of its database only
// what a Driver does. A store's transaction embeds it and defines the other
// operations of Tx. A store that needs one of these done its own way takes it
// out of here; one that does more defines it around this one (pgstore's
// TurnInsert).
type Shared struct {
	D Driver
	*TxState
}

// NewShared is the Shared of a transaction just made, in state st, with d for
// what its database does its own way.
func NewShared(d Driver, st TxState) Shared { return Shared{D: d, TxState: &st} }

// ListJSON is the rows of query, each one column of JSON, decoded, one T a row.
func ListJSON[T any](d Driver, query string, args ...any) ([]T, error) {
	var out []T
	err := d.EachJSON(query, args, func(data []byte) error {
		var v T
		if err := json.Unmarshal(data, &v); err != nil {
			return err
		}
		out = append(out, v)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// Row is a query's one row as both databases' drivers give it.
type Row interface {
	Scan(dest ...any) error
}

// GetJSON decodes the row's one column of JSON into v. noRows is the driver's
// error for no row, which GetJSON returns as ErrNotFound.
func GetJSON(row Row, noRows error, v any) error {
	var data []byte
	err := row.Scan(&data)
	if errors.Is(err, noRows) {
		return ErrNotFound
	}
	if err != nil {
		return err
	}
	return json.Unmarshal(data, v)
}

// Rows is a query's rows as both databases' drivers give them.
type Rows interface {
	Next() bool
	Scan(dest ...any) error
}

// EachJSON calls fn with each row's one column of JSON, in order, and stops
// at the first row it cannot read or fn's first error, which it returns. The
// caller checks the rows' own error and closes them.
func EachJSON(rows Rows, fn func(data []byte) error) error {
	for rows.Next() {
		var data []byte
		if err := rows.Scan(&data); err != nil {
			return err
		}
		if err := fn(data); err != nil {
			return err
		}
	}
	return nil
}

func (s Shared) SessionInsert(sess *protocol.Session) error {
	data, _ := json.Marshal(sess)
	if err := s.D.Send(SQLSessionInsert, sess.ID, sess.UserID, s.D.JSON(data)); err != nil {
		return fmt.Errorf("insert session: %w", err)
	}
	s.Rows.Put("session", sess.ID, data)
	s.Batch.Sent(sess, data)
	return nil
}

// RTCGet reads an RTC (pgstore's, in a write transaction, locks its user's
// stream first).
func (s Shared) RTCGet(id string) (*protocol.RTC, error) {
	var r protocol.RTC
	return &r, s.D.GetJSON(&r, SQLRTCGet, id)
}

// RTCInsert inserts r: its row, with its audit record when r carries one.
func (s Shared) RTCInsert(r *protocol.RTC) error {
	args, data, sent := RTCArgs(r, s.D.Time)
	if err := s.D.Send(SQLRTCInsert, args...); err != nil {
		return fmt.Errorf("insert rtc: %w", err)
	}
	s.Audits = WithAudit(s.Audits, r)
	s.Rows.Put("rtc", r.ID, data)
	s.Batch.Sent(r, sent)
	return nil
}

func (s Shared) SessionList(userID, beforeID string, limit int) ([]protocol.Session, error) {
	if beforeID == "" {
		return ListJSON[protocol.Session](s.D, SQLSessionList, userID, Limit(limit))
	}
	return ListJSON[protocol.Session](s.D, SQLSessionListBefore, userID, beforeID, Limit(limit))
}

func (s Shared) TurnInsert(t *protocol.Turn) error {
	sent, data, _ := t.Encode()
	if err := s.D.Send(SQLTurnInsert, t.ID, t.SessionID, t.Seq, t.Status, s.D.JSON(data)); err != nil {
		return fmt.Errorf("insert turn: %w", err)
	}
	s.Rows.Put("turn", t.ID, data)
	s.Batch.Sent(t, sent)
	return nil
}

func (s Shared) TurnList(sessionID string, p Page) ([]protocol.Turn, error) {
	return ListJSON[protocol.Turn](s.D, SQLTurnList, sessionID, p.After, Limit(p.Limit))
}

func (s Shared) TurnNextQueued(sessionID string) (*protocol.Turn, error) {
	var t protocol.Turn
	return &t, s.D.GetJSON(&t, SQLTurnNextQueued, sessionID, protocol.TurnQueued)
}

func (s Shared) MessageGet(id string) (*protocol.Message, error) {
	var m protocol.Message
	return &m, s.D.GetJSON(&m, SQLMessageGet, id)
}

func (s Shared) MessageByClientID(userID, clientID string) (*protocol.Message, error) {
	var m protocol.Message
	return &m, s.D.GetJSON(&m, SQLMessageByClientID, userID, clientID)
}

func (s Shared) MessageList(sessionID string, p Page) ([]protocol.Message, error) {
	return ListJSON[protocol.Message](s.D, SQLMessageList, sessionID, p.After, Limit(p.Limit))
}

func (s Shared) MessagesStreaming(t *protocol.Turn) ([]protocol.Message, error) {
	msgs, err := ListJSON[protocol.Message](s.D, SQLMessagesStreaming, t.SessionID, t.UserMessageID)
	return slices.DeleteFunc(msgs, func(m protocol.Message) bool { return m.TurnID != t.ID }), err
}

func (s Shared) RTCListByTurn(turnID string) ([]protocol.RTC, error) {
	return ListJSON[protocol.RTC](s.D, SQLRTCListByTurn, turnID)
}

func (s Shared) RTCListBySession(sessionID, afterID string, limit int) ([]protocol.RTC, error) {
	return ListJSON[protocol.RTC](s.D, SQLRTCListBySession, sessionID, afterID, Limit(limit))
}

func (s Shared) LeaseRenew(l Lease, ttl time.Duration) (Lease, error) {
	now := s.At
	l.ExpiresAt = now.Add(ttl)
	n, err := s.D.Exec(SQLLeaseRenew, l.SessionID, l.Holder, l.Token, s.D.Time(l.ExpiresAt), s.D.Time(now))
	if err != nil {
		return l, fmt.Errorf("renew lease: %w", err)
	}
	if n != 1 {
		return l, ErrLeaseLost
	}
	return l, nil
}

func (s Shared) NodeBeat(node string, ttl time.Duration) error {
	now := s.At
	if _, err := s.D.Exec(SQLNodeBeat, node, s.D.Time(now.Add(ttl))); err != nil {
		return fmt.Errorf("node beat: %w", err)
	}
	if _, err := s.D.Exec(SQLNodePrune, s.D.Time(now.Add(-NodeRetention))); err != nil {
		return fmt.Errorf("prune nodes: %w", err)
	}
	return nil
}

func (s Shared) OtherNodeAlive(node string) (bool, error) {
	other := false
	err := s.D.EachJSON(SQLNodeOtherAlive, []any{s.D.Time(s.At)}, func(id []byte) error {
		other = other || string(id) != node
		return nil
	})
	if err != nil {
		return false, fmt.Errorf("read other nodes: %w", err)
	}
	return other, nil
}

func (s Shared) NodeLeave(node string) error {
	if _, err := s.D.Exec(SQLNodeLeave, node, s.D.Time(s.At)); err != nil {
		return fmt.Errorf("node leave: %w", err)
	}
	return nil
}

func (s Shared) AuditGet(rtcID string) (*protocol.AuditRecord, error) {
	countAuditRead()
	var r protocol.RTC
	if err := s.D.GetJSON(&r, SQLAuditGet, rtcID); err != nil {
		return nil, err
	}
	return auditOfRow(&r), nil
}

func (s Shared) AuditList(q AuditQuery) ([]protocol.AuditRecord, error) {
	countAuditRead()
	query, args := AuditListSQL(q, s.D.Time)
	var list []protocol.AuditRecord
	err := s.D.EachJSON(query, args, func(data []byte) error {
		var r protocol.RTC
		if err := json.Unmarshal(data, &r); err != nil {
			return err
		}
		list = append(list, *auditOfRow(&r))
		return nil
	})
	return list, err
}

// auditOfRow is the record of an audited RTC row. A row a node of an earlier
// release wrote may carry no state of its record: its record is the call
// alone (no decision, no times but its creation), so that it is still listed
// and a page is never cut short.
func auditOfRow(r *protocol.RTC) *protocol.AuditRecord {
	if r.Audit == nil {
		r.Audit = &protocol.AuditState{}
	}
	return protocol.AuditRecordOf(r)
}

func (s Shared) AuditPrune(before time.Time) (int64, error) {
	n, err := s.D.Exec(SQLAuditPrune, s.D.Time(before))
	if err != nil {
		return 0, err
	}
	return n, nil
}
