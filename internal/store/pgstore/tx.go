package pgstore

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/rtcagent/rtcagent/internal/protocol"
	"github.com/rtcagent/rtcagent/internal/store"
)

type tx struct {
	// Shared holds and does what both stores do alike; its statements go
	// through driver, after those waiting to be sent (driver.go).
	store.Shared
	q   querier
	seq *sequencer
	// locked holds the position of each user stream whose row this transaction
	// has locked: nobody else can change it until commit, so it is read once.
	locked map[string]store.StreamPos
	// rowsOf are the users whose sessions, turns, messages or RTCs this
	// transaction wrote (raiseStreams).
	rowsOf map[string]bool
	// seen holds, in a read transaction (one snapshot), the positions read so far.
	seen    map[string]store.StreamPos
	tickets []*ticket
	// retry is the first failure after which running fn again can succeed.
	retry error
	// pending are writes not sent yet; failed is the failure of one sent
	// later, after which nothing more is sent (pipeline.go).
	pending []deferred
	failed  error
	// heads are the oldest inbox items of sessions that had none before this
	// transaction inserted one (InboxNext answers from them; a delete forgets them).
	heads map[string]store.InboxItem
	// wants are the reads Prefetch queued to go after the next stream lock;
	// openRTCs, seqs (messages) and turnSeqs keep what some of them read
	// (prefetch.go).
	wants    []deferred
	openRTCs openRTCs
	seqs     seqs
	turnSeqs seqs
	// rtcAhead is the RTC whose turn and open calls Prefetch asked for: its
	// RTCGet answers from those when it is open.
	rtcAhead string
	// ready is what the transaction does to the ready queue at its commit (ready.go).
	ready readyChanges
	// guess lets the transaction guess a lease's token and an inbox item's
	// place from what the prefetch read (ahead), checked at commit
	// (guess.go); headsAhead are the items guessed oldest of their session.
	guess      bool
	ahead      map[string]sessionAhead
	headsAhead map[string]*store.InboxItem
	// clientMsgs are messages by user and client_id (clientKey) read by a
	// prefetch under the user's stream lock or written since; nil: none.
	clientMsgs map[string][]byte
	// left: the transaction expired a node's liveness record (NodeLeave).
	left bool
	// channel is the store's notification channel (notify.go).
	channel string
	// decoded are the store's rows kept decoded (decoded.go).
	decoded *decodedRows
}

var errReadOnly = errors.New("pgstore: write in a read transaction")

// note remembers a retryable failure (the transaction is dead after it, whatever fn
// does with the error) and returns err.
func (t *tx) note(err error) error {
	if err != nil && t.retry == nil && retryable(err) {
		t.retry = err
	}
	return err
}

// settle runs after commit or rollback: it waits for the user's earlier commits to
// reach the hook, calls hook (nil unless committed), then lets later ones through.
func (t *tx) settle(hook func(store.Commit)) {
	defer func() {
		for _, tk := range t.tickets {
			t.seq.leave(tk)
		}
		t.tickets = nil
	}()
	for _, tk := range t.tickets {
		tk.wait()
	}
	if wake := t.Wakes.Pending(); hook != nil && (len(t.Batch.Updates) > 0 || len(wake) > 0) {
		hook(store.Commit{Updates: t.Batch.Updates, Wake: wake, Audits: t.Audits})
	}
}

// limitArg maps a negative limit to SQL NULL (LIMIT ALL), as SQLite reads one.
func limitArg(n int) any {
	if n < 0 {
		return nil
	}
	return n
}

// stream reads the user's position without locking it.
func (t *tx) stream(userID string) (store.StreamPos, error) {
	if p, ok := t.locked[userID]; ok {
		return p, nil
	}
	if p, ok := t.seen[userID]; ok {
		return p, nil
	}
	p := store.StreamPos{Epoch: t.Epoch}
	err := t.queryRow(`SELECT epoch, top, floor FROM user_streams WHERE user_id = $1`, userID).Scan(&p.Epoch, &p.Top, &p.Floor)
	if errors.Is(err, pgx.ErrNoRows) {
		p, err = store.StreamPos{Epoch: t.Epoch}, nil
	}
	if err != nil {
		return p, fmt.Errorf("user stream %s: %w", userID, err)
	}
	if !t.Writable {
		if t.seen == nil {
			t.seen = make(map[string]store.StreamPos)
		}
		t.seen[userID] = p
	}
	return p, nil
}

// lockStream locks the user's stream row until commit, creating it on the user's
// first write. Offsets are assigned under this lock, so a user's writers (on any
// node) commit one after another in offset order.
func (t *tx) lockStream(userID string) (store.StreamPos, error) {
	if p, ok := t.locked[userID]; ok {
		return p, nil
	}
	if !t.Writable {
		return store.StreamPos{}, errReadOnly
	}
	const sel = `SELECT epoch, top, floor FROM user_streams WHERE user_id = $1 FOR UPDATE`
	var p store.StreamPos
	err := t.queryRow(sel, userID).Scan(&p.Epoch, &p.Top, &p.Floor)
	if errors.Is(err, pgx.ErrNoRows) {
		// DO NOTHING: a concurrent first write may create it; this waits for that
		// transaction and the SELECT then locks the committed row.
		_, err = t.exec(`INSERT INTO user_streams (user_id, epoch, top, floor) VALUES ($1, $2, 0, 0)
			ON CONFLICT (user_id) DO NOTHING`, userID, t.Epoch)
		if err == nil {
			err = t.queryRow(sel, userID).Scan(&p.Epoch, &p.Top, &p.Floor)
		}
	}
	if err != nil {
		return p, fmt.Errorf("lock user stream %s: %w", userID, err)
	}
	t.holdStream(userID, p)
	t.afterLock()
	return p, nil
}

// wroteRows notes a write of a session, turn, message or RTC of the user.
func (t *tx) wroteRows(userID string) {
	if t.rowsOf == nil {
		t.rowsOf = map[string]bool{}
	}
	t.rowsOf[userID] = true
}

// raiseStreams runs before commit. It gives the stream row of each user whose
// rows the transaction wrote without a Topic update (which would raise its
// top) a new version, so that a lock that waited for this transaction finds
// the reads sent with it out of date (guardedRead): every write of those rows
// then changes the stream row, as the guard needs.
func (t *tx) raiseStreams() error {
	for user := range t.rowsOf {
		if !slices.ContainsFunc(t.Batch.Updates, func(u protocol.Update) bool { return u.UserID == user }) {
			if err := t.later(nil, `UPDATE user_streams SET top = top WHERE user_id = $1`, user); err != nil {
				return err
			}
		}
	}
	return nil
}

// holdStream records that this transaction locked the user's stream row, read at p.
func (t *tx) holdStream(userID string, p store.StreamPos) {
	if t.locked == nil {
		t.locked = make(map[string]store.StreamPos)
	}
	t.locked[userID] = p
	// Taken while holding the lock: ticket order is lock order (sequencer.go).
	t.tickets = append(t.tickets, t.seq.enter(userID))
}

// streamLock is the lock of a user's stream found through a row of that user
// (a session, an RTC), queued to go out with the transaction's next statement,
// and the row's session as read after the lock.
type streamLock struct {
	userID, sessionID string
	pos               store.StreamPos
	session           []byte
}

// lockThrough queues, for a write transaction that holds no stream yet, the
// lock of the stream of the user that `rows` (a FROM list that names the
// session s) leads to where `where` holds for arg, then the read of s after
// the lock: under READ COMMITTED a read in the locking statement could be
// older than the lock holder's commit. holdLocked takes the result once the
// statements have been sent.
func (t *tx) lockThrough(rows, where string, arg any) *streamLock {
	l := &streamLock{}
	var fresh bool
	lock := deferred{sql: streamLockSQL(rows, where, false), args: []any{arg}}
	if n := len(t.pending); n > 0 && t.pending[n-1].lease {
		lock = deferred{sql: streamLockSQL(rows, where, true), args: append([]any{arg}, t.pending[n-1].args...), mapErr: serverCheck}
		t.pending = t.pending[:n-1]
	}
	lock.row = func(r pgx.Row) error {
		err := r.Scan(&l.userID, &l.pos.Epoch, &l.pos.Top, &l.pos.Floor, &l.sessionID, &fresh)
		if err == nil {
			t.holdStream(l.userID, l.pos)
		}
		return noRowsIsNil(err)
	}
	lock.guard = func() bool { return fresh }
	t.pending = append(t.pending, lock,
		deferred{sql: `SELECT s.data FROM ` + rows + ` WHERE ` + where, args: []any{arg},
			row: func(r pgx.Row) error { return noRowsIsNil(r.Scan(&l.session)) }, optional: true})
	t.afterLock()
	return l
}

// streamLockSQL is lockThrough's lock ($1 its argument). leaseGated, it also
// holds the lease check queued just before it ($2-$5, LeaseCheck's): the check
// is a subquery the lock's rows depend on (LATERAL; OFFSET 0 keeps it from
// being folded into them), so PostgreSQL runs it, taking the lease row's share
// lock, before it locks the stream row. The lock order (lease, then stream) is
// that of two statements, and a lost lease fails the statement before
// anything after it runs: one statement fewer for every fenced transition.
func streamLockSQL(rows, where string, leaseGated bool) string {
	sel := `SELECT us.user_id, us.epoch, us.top, us.floor, s.id,
		(SELECT xmin FROM user_streams WHERE user_id = us.user_id) = us.xmin AS fresh FROM ` + rows +
		` JOIN user_streams us ON us.user_id = s.user_id WHERE ` + where
	if !leaseGated {
		return sel + ` FOR UPDATE OF us`
	}
	return `SELECT x.* FROM (SELECT (` + leaseCheckAfterOne + `) AS leased OFFSET 0) AS lease_gate
		CROSS JOIN LATERAL (` + sel + ` AND lease_gate.leased FOR UPDATE OF us) x`
}

// holdLocked caches the session read under a stream lockThrough took
// (store.RowCache); false when the row led to no stream.
func (t *tx) holdLocked(l *streamLock) bool {
	if l.userID == "" {
		return false
	}
	if l.session != nil {
		t.Rows.Put("session", l.sessionID, l.session)
	}
	return true
}

func noRowsIsNil(err error) error {
	if errors.Is(err, pgx.ErrNoRows) {
		return nil
	}
	return err
}

func (t *tx) NextOffset(userID string) (int64, error) {
	if !t.Writable {
		p, err := t.stream(userID)
		return p.Top + 1, err
	}
	// Locked, so the offset returned is the one the next UpdateAppend assigns.
	p, err := t.lockStream(userID)
	if u, ok := t.Batch.Open(userID); ok {
		return u.Offset, err
	}
	return p.Top + 1, err
}

// UpdateAppend adds the change to the user's open update (store.Batch), written
// when it is sealed.
func (t *tx) UpdateAppend(userID, typ string, data any) (protocol.Update, error) {
	p, err := t.lockStream(userID)
	if err != nil {
		return protocol.Update{}, err
	}
	u, opened, err := t.Batch.Add(userID, p.Epoch, p.Top+1, typ, data)
	if err != nil {
		return protocol.Update{}, err
	}
	if opened {
		p.Top = u.Offset
		t.locked[userID] = p
	}
	return u, nil
}

// writeUpdate writes a sealed update (store.Batch). One statement, sent with
// the next (pipeline.go): the CTE bumps top, the INSERT stores the update.
func (t *tx) writeUpdate(u protocol.Update, payload []byte) error {
	err := t.later(nil, `WITH bump AS (UPDATE user_streams SET top = $2 WHERE user_id = $1)
		INSERT INTO updates (user_id, off, payload, created_at) VALUES ($1, $2, $3, $4)`,
		u.UserID, u.Offset, string(payload), t.At)
	if err != nil {
		return fmt.Errorf("append update: %w", err)
	}
	return nil
}

func (t *tx) UpdateOpen(userID string) (protocol.Update, bool) { return t.Batch.Open(userID) }

func (t *tx) StreamGet(userID string) (store.StreamPos, error) { return t.stream(userID) }

func (t *tx) StreamReset(userID string) (store.StreamPos, error) {
	p, err := t.lockStream(userID)
	if err != nil {
		return p, err
	}
	if err := t.Batch.Seal(userID, t.writeUpdate); err != nil {
		return p, err
	}
	p.Epoch, p.Floor = store.NewEpoch(), p.Top
	if _, err := t.exec(store.SQLStreamDrop, userID); err != nil {
		return p, fmt.Errorf("reset stream %s: %w", userID, err)
	}
	if _, err := t.exec(store.SQLStreamNewEpoch, userID, p.Epoch, p.Floor); err != nil {
		return p, fmt.Errorf("reset stream %s: %w", userID, err)
	}
	t.locked[userID] = p
	return p, nil
}

func (t *tx) UpdateList(userID string, since int64, limit, maxBytes int) ([]protocol.Update, store.StreamPos, error) {
	p, err := t.stream(userID)
	if err != nil {
		return nil, p, err
	}
	// The byte bound is applied by the server, so payloads past it are not sent:
	// a running sum of their sizes (octet_length reads a TOASTed value's size
	// without reading the value) keeps the first row and those within the bound.
	rows, err := t.query(`SELECT payload FROM (
		SELECT off, payload, SUM(octet_length(payload)) OVER (ORDER BY off ROWS UNBOUNDED PRECEDING) AS upto, octet_length(payload) AS size
		FROM (SELECT off, payload FROM updates WHERE user_id = $1 AND off > $2 ORDER BY off LIMIT $3) page) sized
		WHERE $4 <= 0 OR upto <= $4 OR upto = size ORDER BY off`, userID, since, limitArg(limit), maxBytes)
	if err != nil {
		return nil, p, fmt.Errorf("list updates: %w", t.note(err))
	}
	defer rows.Close()
	var out []protocol.Update
	for rows.Next() {
		var payload []byte
		if err := rows.Scan(&payload); err != nil {
			return nil, p, err
		}
		var u protocol.Update
		if err := json.Unmarshal(payload, &u); err != nil {
			return nil, p, fmt.Errorf("decode update: %w", err)
		}
		u.UserID = userID
		out = append(out, u)
	}
	return out, p, t.note(rows.Err())
}

func (t *tx) UpdatePrune(before time.Time, keep int) (int64, error) {
	if !t.Writable {
		return 0, errReadOnly
	}
	// Per stream, the oldest updates up to the first one created at or after
	// before, keeping the newest keep: only a stream's oldest go, so the kept
	// history has no hole even when the clock went back between appends.
	// Each stream is read from its floor on the primary key: no index on the
	// age of updates, which every append would write (migration 008). Streams
	// are not locked (a long prune must not stall writers); offsets read here
	// may be old, which only keeps more.
	rows, err := t.query(`WITH cuts AS (
			SELECT s.user_id, s.floor, LEAST(
				COALESCE((SELECT max(u.off) FROM updates u WHERE u.user_id = s.user_id), s.floor) - $2,
				COALESCE((SELECT u.off - 1 FROM updates u WHERE u.user_id = s.user_id AND u.off > s.floor
					AND u.created_at >= $1 ORDER BY u.off LIMIT 1),
					(SELECT max(u.off) FROM updates u WHERE u.user_id = s.user_id), s.floor)) AS cut
			FROM user_streams s),
		d AS (DELETE FROM updates u USING cuts c
			WHERE u.user_id = c.user_id AND c.cut > c.floor AND u.off > c.floor AND u.off <= c.cut
			RETURNING u.user_id, u.off)
		SELECT user_id, max(off), count(*) FROM d GROUP BY user_id`, before, keep)
	if err != nil {
		return 0, fmt.Errorf("prune updates: %w", t.note(err))
	}
	var users []string
	var highs []int64
	var n int64
	for rows.Next() {
		var u string
		var hi, c int64
		if err := rows.Scan(&u, &hi, &c); err != nil {
			rows.Close()
			return 0, err
		}
		users, highs, n = append(users, u), append(highs, hi), n+c
	}
	rows.Close() // before the next statement on the connection
	if err := t.note(rows.Err()); err != nil {
		return 0, fmt.Errorf("prune updates: %w", err)
	}
	if n == 0 {
		return 0, nil
	}
	// floor = oldest remaining offset - 1. When none remains, the highest deleted
	// offset, not top: top may include an append committed since the DELETE, whose
	// row this statement's snapshot does not see. The floor never goes down.
	_, err = t.exec(`UPDATE user_streams s SET floor = GREATEST(s.floor,
			COALESCE((SELECT min(u.off) - 1 FROM updates u WHERE u.user_id = s.user_id), g.hi))
		FROM unnest($1::text[], $2::bigint[]) AS g(user_id, hi) WHERE s.user_id = g.user_id`, users, highs)
	if err != nil {
		return n, fmt.Errorf("raise floor: %w", err)
	}
	return n, nil
}

// casResult maps an UPDATE … WHERE status = $n result to ErrConflict/ErrNotFound.
// Under READ COMMITTED the UPDATE waits for a concurrent writer of the row and
// re-checks the status on the committed version: two compare-and-sets from the
// same status never both succeed.
func (t *tx) casResult(tag pgconn.CommandTag, err error, table, id string) error {
	if err != nil {
		return fmt.Errorf("update %s %s: %w", table, id, err)
	}
	if tag.RowsAffected() == 1 {
		return nil
	}
	var one int
	if err := t.queryRow(`SELECT 1 FROM `+table+` WHERE id = $1`, id).Scan(&one); errors.Is(err, pgx.ErrNoRows) {
		return store.ErrNotFound
	} else if err != nil {
		return err
	}
	return store.ErrConflict
}

// casUpdate queues a compare-and-set of one row of table (id $1, the status
// it must have last in args) that the server checks (pipeline.go): when no
// row was in that status the transaction fails with store.ErrConflict, or
// store.ErrNotFound when the row is gone. Every writer of a turn or an RTC
// reads it under its user's stream lock first, so the check fails only when
// something is amiss, and the transaction is not worth going on with.
func (t *tx) casUpdate(table, set string, args ...any) error {
	return t.laterCheck(casSQL(table, set, len(args)), args...)
}

// casSQL is casUpdate's statement for args $1…$n.
func casSQL(table, set string, n int) string {
	return `WITH u AS (UPDATE ` + table + ` SET ` + set + ` WHERE id = $1 AND status = $` + strconv.Itoa(n) + ` RETURNING 1)
		SELECT CASE WHEN EXISTS (SELECT 1 FROM u) THEN true ELSE rtcagent_cas_failed('` + table + `', $1) END`
}
