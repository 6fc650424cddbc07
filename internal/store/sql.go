package store

import (
	"crypto/rand"
	"encoding/hex"
	"strconv"
	"strings"
	"time"
	"unsafe"

	"github.com/rtcagent/rtcagent/internal/protocol"
)

// The statements below are the ones both stores send as they are: the SQL
// the two databases share, written once. Each store keeps what differs for its
// database: its other statements, how it sends a statement (at once, or with
// the next one), and the arguments, which it passes as its schema stores them
// (a time as TIMESTAMPTZ or as Unix milliseconds, a flag as a boolean or as 0
// or 1). They are written in PostgreSQL's form, $n for the nth argument, which
// SQLite reads too: its driver (modernc.org/sqlite) binds $n to the nth
// argument, wherever and however often it stands in the statement
// (sqlitestore's TestNumberedArguments holds it to that).
//
// They are grouped by the part of Tx that sends them.

// Stream.
const (
	// SQLStreamDrop deletes a user's updates ($1 the user), for StreamReset.
	SQLStreamDrop = `DELETE FROM updates WHERE user_id = $1`
	// SQLStreamNewEpoch sets a user's epoch ($2) and floor ($3), for StreamReset.
	SQLStreamNewEpoch = `UPDATE user_streams SET epoch = $2, floor = $3 WHERE user_id = $1`
)

// Sessions.
const (
	SQLSessionInsert = `INSERT INTO sessions (id, user_id, data) VALUES ($1, $2, $3)`
	SQLSessionGet    = `SELECT data FROM sessions WHERE id = $1`
	// SQLSessionList lists a user's sessions, newest first ($2 the limit).
	SQLSessionList = `SELECT data FROM sessions WHERE user_id = $1 ORDER BY ord DESC LIMIT $2`
	// SQLSessionListBefore is SQLSessionList of those created before session $2.
	SQLSessionListBefore = `SELECT data FROM sessions WHERE user_id = $1
		AND ord < (SELECT ord FROM sessions WHERE id = $2) ORDER BY ord DESC LIMIT $3`
)

// Turns.
const (
	SQLTurnInsert = `INSERT INTO turns (id, session_id, seq, status, data) VALUES ($1, $2, $3, $4, $5)`
	SQLTurnGet    = `SELECT data FROM turns WHERE id = $1`
	// SQLTurnList lists a session's turns by seq from after seq $2 ($3 the limit).
	SQLTurnList = `SELECT data FROM turns WHERE session_id = $1 AND seq > $2 ORDER BY seq LIMIT $3`
	// SQLTurnNextQueued reads the session's oldest turn in status $2.
	SQLTurnNextQueued = `SELECT data FROM turns WHERE session_id = $1 AND status = $2 ORDER BY seq LIMIT 1`
)

// MaxSeqSQL reads the highest seq of a session ($1) in table (turns,
// messages), 0 when it has none.
func MaxSeqSQL(table string) string {
	return `SELECT COALESCE(MAX(seq), 0) FROM ` + table + ` WHERE session_id = $1`
}

// Messages.
const (
	SQLMessageGet        = `SELECT data FROM messages WHERE id = $1`
	SQLMessageByClientID = `SELECT data FROM messages WHERE user_id = $1 AND client_id = $2`
	// SQLMessagesStreaming lists session $1's streaming messages after message
	// $2 (after every message when $2 names none), by seq.
	SQLMessagesStreaming = `SELECT data FROM messages WHERE session_id = $1
		AND seq > COALESCE((SELECT seq FROM messages WHERE id = $2), 0) AND status = 'streaming' ORDER BY seq`
	// SQLMessageList lists a session's messages by seq from after seq $2 ($3 the limit).
	SQLMessageList = `SELECT data FROM messages WHERE session_id = $1 AND seq > $2 ORDER BY seq LIMIT $3`
)

// RTCs.
const (
	// SQLRTCInsert inserts an RTC: its ids and status ($1-$6), then the
	// columns RTCArgs gives ($7-$12).
	SQLRTCInsert = `INSERT INTO rtcs (id, session_id, turn_id, user_id, seq, status, open, deadline_at, audited, created_at, ended_at, data)
	VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)`
	// SQLRTCUpdateSet is what an RTC's compare-and-set writes: RTCArgs' $2
	// and $3-$8 (RTC $1, from status $9). A record pruned stays pruned unless
	// the call changes again with its record.
	SQLRTCUpdateSet  = `status = $2, open = $3, deadline_at = $4, audited = audited OR $5, created_at = $6, ended_at = $7, data = $8`
	SQLRTCGet        = `SELECT data FROM rtcs WHERE id = $1`
	SQLRTCListByTurn = `SELECT data FROM rtcs WHERE turn_id = $1 ORDER BY seq`
	// SQLRTCListBySession lists a session's RTCs in creation order, those after
	// RTC $2 when it is one of the session's ($3 the limit).
	SQLRTCListBySession = `SELECT data FROM rtcs WHERE session_id = $1
		AND ord > COALESCE((SELECT ord FROM rtcs WHERE id = $2 AND session_id = $1), 0) ORDER BY ord LIMIT $3`
)

// Inbox. The embedded store keys items by session and deletes by both.
const (
	SQLInboxNext   = `SELECT id, session_id, kind, turn_id, created_at FROM inbox WHERE session_id = $1 ORDER BY id LIMIT 1`
	SQLInboxDelete = `DELETE FROM inbox WHERE id = $1`
)

// Leases.
const (
	// SQLLeaseRenew moves the expiry of the lease of session $1, holder $2 and
	// token $3 to $4 when it has not expired at $5 (the transaction's time).
	SQLLeaseRenew = `UPDATE leases SET expires_at = $4 WHERE session_id = $1 AND holder = $2 AND token = $3 AND expires_at > $5`
)

// Nodes.
const (
	// SQLNodeBeat writes node $1's liveness record, alive until $2.
	SQLNodeBeat = `INSERT INTO nodes (node_id, expires_at) VALUES ($1, $2)
		ON CONFLICT (node_id) DO UPDATE SET expires_at = excluded.expires_at`
	// SQLNodePrune deletes the liveness records that expired before $1 (the
	// transaction's time less NodeRetention).
	SQLNodePrune = `DELETE FROM nodes WHERE expires_at < $1`
	// SQLNodeLeave expires node $1's liveness record at $2 (the transaction's time).
	SQLNodeLeave = `UPDATE nodes SET expires_at = $2 WHERE node_id = $1`
	// SQLNodeOtherAlive reads the nodes with a liveness record alive at $1
	// (the transaction's time), the two that live longest: a node other than
	// the caller is alive when one of them is not the caller. An index range
	// with nothing read only to be filtered out.
	SQLNodeOtherAlive = `SELECT node_id FROM nodes WHERE expires_at > $1 ORDER BY expires_at DESC LIMIT 2`

	// NodeRetention is how long an expired liveness record is kept: far longer
	// than any lease TTL, so deleting it (which makes its leases wait for their
	// own expiry again) never frees anything early.
	NodeRetention = time.Hour
)

// Audit. An RTC's audit record is its own row: the call and the state of its
// record it carries (protocol.RTC.Audit). The row is audited while it holds a
// record not pruned; created_at and ended_at are the record's times.
const (
	// SQLAuditGet reads the RTC $1 when it holds its audit record.
	SQLAuditGet = `SELECT data FROM rtcs WHERE id = $1 AND audited`
	// SQLAuditPrune drops the records of calls that ended before $1 (the
	// calls stay).
	SQLAuditPrune = `UPDATE rtcs SET audited = false WHERE audited AND ended_at IS NOT NULL AND ended_at < $1`
)

// AuditListSQL is AuditList's statement for q and its arguments; dbTime gives
// q.Since as the store's schema keeps a time. It reads RTCs.
func AuditListSQL(q AuditQuery, dbTime func(time.Time) any) (string, []any) {
	where := []string{"audited"}
	var args []any
	arg := func(v any) string {
		args = append(args, v)
		return "$" + strconv.Itoa(len(args))
	}
	if q.UserID != "" {
		where = append(where, "user_id = "+arg(q.UserID))
	}
	if q.SessionID != "" {
		where = append(where, "session_id = "+arg(q.SessionID))
	}
	if !q.Since.IsZero() {
		where = append(where, "created_at >= "+arg(dbTime(q.Since)))
	}
	if q.AfterRTC != "" {
		where = append(where, "ord > COALESCE((SELECT ord FROM rtcs WHERE id = "+arg(q.AfterRTC)+"), 0)")
	}
	query := `SELECT data FROM rtcs WHERE ` + strings.Join(where, " AND ") + ` ORDER BY ord LIMIT ` + arg(Limit(q.Limit))
	return query, args
}

// RTCArgs is the arguments of SQLRTCInsert for r ($1-$12), times as the store
// keeps them (dbTime), and r's JSON as stored and as sent, encoded once
// (protocol.RTC.Encode).
func RTCArgs(r *protocol.RTC, dbTime func(time.Time) any) (args []any, data, sent []byte) {
	sent, data, _ = r.Encode()
	at := func(t *time.Time) any {
		if t == nil {
			return nil
		}
		return dbTime(*t)
	}
	var created, ended any
	if r.Audit != nil {
		created, ended = dbTime(r.CreatedAt), at(r.Audit.EndedAt)
	}
	return []any{r.ID, r.SessionID, r.TurnID, r.UserID, r.Seq, r.Status,
		!protocol.RTCTerminal(r.Status), at(r.DeadlineAt), r.Audit != nil, created, ended, Text(data)}, data, sent
}

// Text is stored JSON as a statement's text argument, without a copy: a
// row's encoding is never changed once made (stores keep it and compare it
// by identity), so the string it shares bytes with stays as it was.
func Text(data []byte) string {
	return unsafe.String(unsafe.SliceData(data), len(data))
}

// RTCUpdateArgs is the arguments of an RTC's compare-and-set (SQLRTCUpdateSet,
// then the status r must have, $9).
func RTCUpdateArgs(r *protocol.RTC, expectStatus string, dbTime func(time.Time) any) (args []any, data, sent []byte) {
	args, data, sent = RTCArgs(r, dbTime)
	return append([]any{r.ID, r.Status}, append(args[6:], expectStatus)...), data, sent
}

// The schema's own records: its version and the initial epoch of new streams.
const (
	// SQLMigrationApplied records that migration $1 is applied.
	SQLMigrationApplied = `INSERT INTO schema_migrations (version) VALUES ($1)`
	// SQLEpochInit sets the initial epoch ($1) of new streams unless it is set.
	SQLEpochInit = `INSERT INTO meta (key, value) VALUES ('epoch', $1) ON CONFLICT (key) DO NOTHING`
	// SQLEpochGet reads the initial epoch of new streams.
	SQLEpochGet = `SELECT value FROM meta WHERE key = 'epoch'`
)

// NewEpoch returns a new random epoch: the name of a stream's timeline.
func NewEpoch() string {
	var b [4]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// Limit is how many rows a list asked for at most n returns: n, or 100 when n
// is not above 0.
func Limit(n int) int {
	if n <= 0 {
		return 100
	}
	return n
}
