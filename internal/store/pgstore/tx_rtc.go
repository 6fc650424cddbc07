package pgstore

import (
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/rtcagent/rtcagent/internal/protocol"
	"github.com/rtcagent/rtcagent/internal/store"
)

// RTCInsert is Shared's, then r is among the open calls of its turn when the
// transaction read them.
func (t *tx) RTCInsert(r *protocol.RTC) error {
	if err := t.Shared.RTCInsert(r); err != nil {
		return err
	}
	data, _ := t.Rows.Get("rtc", r.ID)
	t.openRTCs.put(r, data)
	t.wroteRows(r.UserID)
	return wrote(t, "rtc", r.ID, data, r)
}

// RTCGet in a write transaction that holds no user's stream yet first locks
// the stream of the RTC's user, found through the RTC and its session (neither
// changes), then reads the session and the RTC after the lock: three
// statements in one exchange (two when Prefetch read the RTC's open calls
// with the lock, and the RTC is one of them). Every write of an RTC happens under that lock
// (its update takes an offset), so the RTC read is the one the transaction
// overwrites, and the session is read once (store.RowCache).
func (t *tx) RTCGet(id string) (*protocol.RTC, error) {
	const sel = store.SQLRTCGet
	if !t.Writable || len(t.locked) > 0 || t.failed != nil {
		return getRow[protocol.RTC](t, "rtc", id, sel, id)
	}
	l := t.lockThrough("rtcs r JOIN sessions s ON s.id = r.session_id", "r.id = $1", id)
	if t.rtcAhead == id { // prefetched with its open calls: it is among them unless it ended
		if err := t.flush(); err != nil {
			return new(protocol.RTC), err
		}
		t.holdLocked(l)
		if data, ok := t.openRTCs.find(id); ok {
			return decodeRow[protocol.RTC](t.decoded, "rtc", id, data)
		}
		return getRow[protocol.RTC](t, "rtc", id, sel, id) // ended: read under the lock now held
	}
	r, err := getRow[protocol.RTC](t, "rtc", id, sel, id)
	t.holdLocked(l)
	return r, err
}

func (t *tx) RTCListOpenByTurn(turnID string) ([]protocol.RTC, error) {
	if list, ok, err := t.openRTCs.get(t.decoded, turnID); ok {
		return list, err
	}
	return listJSON[protocol.RTC](t, `SELECT data FROM rtcs WHERE turn_id = $1 AND open ORDER BY seq`, turnID)
}

func (t *tx) RTCListOpenByUser(userID string, limit int) ([]protocol.RTC, error) {
	return listJSON[protocol.RTC](t, `SELECT data FROM rtcs WHERE user_id = $1 AND open ORDER BY ord LIMIT $2`, userID, limitArg(limit))
}

func (t *tx) RTCListExpired(now time.Time, limit int) ([]protocol.RTC, error) {
	return listJSON[protocol.RTC](t, `SELECT data FROM rtcs WHERE open AND deadline_at IS NOT NULL AND deadline_at <= $1
		ORDER BY deadline_at LIMIT $2`, now, limitArg(limit))
}

// RTCUpdate is a compare-and-set the server checks (casUpdate): it waits to
// go with the transaction's next statement.
func (t *tx) RTCUpdate(r *protocol.RTC, expectStatus string) error {
	args, data, sent := store.RTCUpdateArgs(r, expectStatus, t.D.Time)
	if err := t.casUpdate("rtcs", store.SQLRTCUpdateSet, args...); err != nil {
		return err
	}
	t.Batch.Sent(r, sent)
	t.openRTCs.put(r, data)
	t.Audits = store.WithAudit(t.Audits, r)
	t.wroteRows(r.UserID)
	return wrote(t, "rtc", r.ID, data, r)
}

func (t *tx) InboxInsert(item *store.InboxItem) error {
	if !t.Writable {
		return errReadOnly
	}
	if t.failed != nil {
		return t.failed
	}
	// Sent with the transaction's next statement (item.ID is set then). The
	// subquery sees the session's items as before the insert: none means this
	// one is its oldest, which InboxNext then knows without asking.
	item.CreatedAt = t.At
	sql := `INSERT INTO inbox (session_id, kind, turn_id, created_at) VALUES ($1, $2, $3, $4)
			RETURNING id, NOT EXISTS (SELECT 1 FROM inbox WHERE session_id = $1)`
	if t.guessFirst(item) {
		sql = inboxFirst
	}
	t.pending = append(t.pending, deferred{
		sql:  sql,
		args: []any{item.SessionID, item.Kind, item.TurnID, t.At},
		row: func(r pgx.Row) error {
			var first bool
			err := r.Scan(&item.ID, &first)
			if err == nil && first {
				if t.heads == nil {
					t.heads = map[string]store.InboxItem{}
				}
				t.heads[item.SessionID] = *item
			}
			return err
		},
		mapErr: func(err error) error { return fmt.Errorf("insert inbox item: %w", err) }})
	t.Wakes.Add(item.SessionID)
	return nil
}

func (t *tx) InboxNext(sessionID string) (*store.InboxItem, error) {
	if t.Writable && t.Wakes.Added(sessionID) {
		// This transaction queued work for the session: its insert tells
		// whether that is the oldest item (sent now, if it was not yet),
		// unless the item was guessed oldest (its ID is set once sent).
		if it := t.headsAhead[sessionID]; it != nil {
			return it, nil
		}
		if err := t.flush(); err != nil {
			return nil, err
		}
		if it, ok := t.heads[sessionID]; ok {
			return &it, nil
		}
	}
	var it store.InboxItem
	err := t.queryRow(store.SQLInboxNext, sessionID).Scan(&it.ID, &it.SessionID, &it.Kind, &it.TurnID, &it.CreatedAt)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, store.ErrNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("next inbox item: %w", err)
	}
	it.CreatedAt = it.CreatedAt.UTC()
	return &it, nil
}

func (t *tx) InboxDelete(it store.InboxItem) error {
	if h := t.headsAhead[it.SessionID]; it.ID == 0 && h != nil {
		if err := t.flush(); err != nil { // the guessed item's ID
			return err
		}
		it.ID = h.ID
	}
	if it.ID == 0 {
		return fmt.Errorf("pgstore: delete an inbox item of session %s whose id is not known", it.SessionID)
	}
	clear(t.heads)
	delete(t.headsAhead, it.SessionID)
	t.ready.emptied = append(t.ready.emptied, it.SessionID) // its last item may be gone
	return t.later(nil, store.SQLInboxDelete, it.ID)
}

// InboxFinish is one statement: the delete, the look for another item of the
// session (in the statement's snapshot, which the delete does not change: any
// id but this one) and the release when there is none. It waits to go with the
// transaction's next statement or COMMIT, which reads *released.
func (t *tx) InboxFinish(id int64, l store.Lease, released *bool) error {
	if !t.Writable {
		return errReadOnly
	}
	if t.failed != nil {
		return t.failed
	}
	clear(t.heads)
	delete(t.headsAhead, l.SessionID)
	*released = false
	t.pending = append(t.pending, deferred{
		sql: `WITH gone AS (DELETE FROM inbox WHERE id = $1),
			more AS (SELECT EXISTS (SELECT 1 FROM inbox WHERE session_id = $2 AND id > $1)
				OR EXISTS (SELECT 1 FROM inbox WHERE session_id = $2 AND id < $1) AS found),
			release AS (UPDATE leases SET expires_at = 'epoch'
				WHERE session_id = $2 AND holder = $3 AND token = $4 AND NOT (SELECT found FROM more)),
			-- the holder drains what is left; with nothing left, nothing waits
			unready AS (DELETE FROM ready WHERE session_id = $2 AND gen = (SELECT gen FROM ready WHERE session_id = $2))
			SELECT NOT found FROM more`,
		args: []any{id, l.SessionID, l.Holder, l.Token},
		row: func(r pgx.Row) error {
			err := r.Scan(released)
			if err == nil && *released {
				t.Wakes.Let(l.SessionID)
			}
			return err
		},
		mapErr: func(err error) error { return fmt.Errorf("finish inbox item: %w", err) }})
	return nil
}

// claimCandidates ($1 now, $2 the limit) reads the ready queue from its head,
// then the leases of holders that died: expired and not given back, or held
// by a node whose liveness record expired (migration 007). A candidate may be
// held after all (work queued while its holder drains: the claim is refused,
// and the holder takes it off with its next finished item) or have no work
// left (a dead holder's last item was done: the claim takes it off and gives
// the lease back).
const claimCandidates = `SELECT session_id FROM (
		(SELECT session_id, since AS at FROM ready ORDER BY since LIMIT $2)
		UNION ALL
		(SELECT session_id, expires_at FROM leases WHERE expires_at > 'epoch' AND expires_at <= $1 LIMIT $2)
		UNION ALL
		(SELECT l.session_id, n.expires_at FROM nodes n
			CROSS JOIN LATERAL (SELECT session_id FROM leases
				WHERE holder = n.node_id AND expires_at > 'epoch' LIMIT $2) l
			WHERE n.expires_at <= $1)
		) c GROUP BY session_id ORDER BY min(at) LIMIT $2`

// InboxSessions lists candidates only; the claim is LeaseAcquire (see the package
// doc). It takes no locks, so it also works in Read.
func (t *tx) InboxSessions(limit int) ([]string, error) {
	rows, err := t.query(claimCandidates, t.At, limitArg(limit))
	if err != nil {
		return nil, fmt.Errorf("inbox sessions: %w", t.note(err))
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[string])
	return ids, t.note(err)
}

// LeaseAcquire is one upsert. ON CONFLICT DO UPDATE locks the lease row and, under
// READ COMMITTED, evaluates its WHERE on the newest committed version (waiting for
// a concurrent acquirer or a LeaseCheck's share lock to end): of two nodes racing,
// one takes the lease and the other sees it live and gets ErrConflict. A lease
// whose holder's liveness record expired is taken like an expired one; a holder
// renewing its record at that moment loses the lease all the same, and its next
// LeaseCheck fails on the bumped token.
// LeaseAcquire never waits for another transaction's lock on the lease row
// (SKIP LOCKED): a row its holder's checked write or another acquirer has
// locked is busy, ErrConflict. So a transaction that holds a user's stream
// (an API write adopting the work it queued) never waits for a lease, and the
// lock order holds: a lease row before a user stream row (see doc.go).
func (t *tx) LeaseAcquire(sessionID, holder string, ttl time.Duration) (store.Lease, error) {
	l := store.Lease{SessionID: sessionID, Holder: holder, ExpiresAt: t.At.Add(ttl)}
	if !t.Writable {
		return l, errReadOnly
	}
	if g, ok := t.guessLease(sessionID, holder, ttl); ok {
		t.tookLease(sessionID)
		return g, nil
	}
	err := t.queryRow(`UPDATE leases AS l SET
			holder = $2,
			-- the holder extending its live lease keeps the token; any new acquisition bumps it
			token = CASE WHEN l.holder = $2 AND l.expires_at > $4 THEN l.token ELSE l.token + 1 END,
			expires_at = $3
		FROM (SELECT session_id FROM leases WHERE session_id = $1 FOR UPDATE SKIP LOCKED) AS free
		WHERE l.session_id = free.session_id AND (l.holder = $2 OR l.expires_at <= $4
			OR EXISTS (SELECT 1 FROM nodes n WHERE n.node_id = l.holder AND n.expires_at <= $4))
		RETURNING l.token`, sessionID, holder, l.ExpiresAt, t.At).Scan(&l.Token)
	if errors.Is(err, pgx.ErrNoRows) {
		// Held, busy, or the session's first lease: only the last inserts.
		err = t.queryRow(`INSERT INTO leases (session_id, holder, token, expires_at) VALUES ($1, $2, 1, $3)
			ON CONFLICT (session_id) DO NOTHING RETURNING token`, sessionID, holder, l.ExpiresAt).Scan(&l.Token)
	}
	if errors.Is(err, pgx.ErrNoRows) {
		return l, store.ErrConflict
	}
	if err != nil {
		return l, fmt.Errorf("acquire lease %s: %w", sessionID, err)
	}
	t.tookLease(sessionID)
	return l, nil
}

// tookLease notes a lease taken: its session is off the ready queue at
// commit (its holder drains what is there and what comes).
func (t *tx) tookLease(sessionID string) {
	t.markLeased(sessionID)
	t.ready.claimed = append(t.ready.claimed, sessionID)
}

// leaseCheck ($1 session, $2 holder, $3 token, $4 now): the session's lease
// row, found by its key and share-locked, then judged.
const leaseCheck = `WITH lease AS (SELECT holder, token, expires_at FROM leases WHERE session_id = $1 FOR SHARE)
	SELECT CASE WHEN EXISTS (SELECT 1 FROM lease WHERE holder = $2 AND token = $3 AND expires_at > $4) THEN true
		ELSE rtcagent_fail('RA410', 'lease of session ' || $1 || ' lost') END`

// leaseCheckAfterOne is leaseCheck with its parameters from $2 (streamLockSQL).
var leaseCheckAfterOne = rename(leaseCheck, nil, 0, 1)

// LeaseCheck, in a write transaction, share-locks the lease row until commit: an
// acquirer (which needs a conflicting lock) finds the row busy until this
// transaction ends, so everything a holder writes after a successful check
// commits before anyone else can take the lease. Had an acquirer committed
// first, the WHERE is evaluated on its version and the check fails. The check
// is the server's (rtcagent_fail, pipeline.go), so it waits to go with the
// transaction's next statement: a lost lease fails that statement and the
// transaction, never letting a write after it commit.
func (t *tx) LeaseCheck(l store.Lease) error {
	const held = `SELECT 1 FROM leases WHERE session_id = $1 AND holder = $2 AND token = $3 AND expires_at > $4`
	if t.Writable {
		t.markLeased(l.SessionID)
		if err := t.laterCheck(leaseCheck, l.SessionID, l.Holder, l.Token, t.At); err != nil {
			return err
		}
		// A stream lock queued next takes the check into its statement (lockThrough).
		t.pending[len(t.pending)-1].lease = true
		return nil
	}
	var one int
	err := t.queryRow(held, l.SessionID, l.Holder, l.Token, t.At).Scan(&one)
	if errors.Is(err, pgx.ErrNoRows) {
		return store.ErrLeaseLost
	}
	if err != nil {
		return fmt.Errorf("check lease: %w", err)
	}
	return nil
}

// LeaseRelease gives the lease back where it is held with l's token. The
// row (and its token) stays, so the next holder's token is higher. Work left
// goes back on the ready queue with the commit (queueReady).
func (t *tx) LeaseRelease(l store.Lease) error {
	if err := t.later(nil, `UPDATE leases SET expires_at = 'epoch' WHERE session_id = $1 AND holder = $2 AND token = $3`,
		l.SessionID, l.Holder, l.Token); err != nil {
		return err
	}
	t.Wakes.Let(l.SessionID)
	t.ready.released = append(t.ready.released, l)
	return nil
}
