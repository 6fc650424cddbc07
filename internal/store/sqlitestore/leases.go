package sqlitestore

import (
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/rtcagent/rtcagent/internal/store"
)

// leaseRow is a session's lease row.
type leaseRow struct {
	holder  string
	token   int64
	expires int64 // Unix milliseconds; 0 once released
	exists  bool  // the row is in the table
}

// knownLeases are the sessions' lease rows as the writer last committed or
// read them: like knownRows, true while this store is the database's one
// writer, since only this file's statements write leases. A write
// transaction checks, takes, renews and gives back a known lease without
// reading it. In tests every lease taken from it is checked against the
// database.
type knownLeases map[string]leaseRow

// lease returns the session's lease row as this transaction sees it.
func (t *tx) lease(sessionID string) (leaseRow, error) {
	if l, ok := t.leases[sessionID]; ok {
		return l, nil
	}
	if l, ok := t.knownLeases[sessionID]; ok && t.Writable {
		read := func(q querier) (leaseRow, error) { return t.readLease(q, sessionID) }
		if err := checkKnown(t, "the lease of "+sessionID, l, read, func(a, b leaseRow) bool { return a == b }); err != nil {
			return l, err
		}
		t.noteLease(sessionID, l)
		return l, nil
	}
	l, err := t.readLease(t.q, sessionID)
	if err == nil && t.Writable {
		t.noteLease(sessionID, l)
	}
	return l, err
}

func (t *tx) readLease(q querier, sessionID string) (leaseRow, error) {
	l := leaseRow{exists: true}
	err := q.QueryRowContext(t.Ctx, `SELECT holder, token, expires_at FROM leases WHERE session_id = ?`, sessionID).Scan(&l.holder, &l.token, &l.expires)
	if errors.Is(err, sql.ErrNoRows) {
		return leaseRow{}, nil
	}
	if err != nil {
		return l, fmt.Errorf("read lease %s: %w", sessionID, err)
	}
	return l, nil
}

// noteLease records the session's lease row as this transaction leaves it.
func (t *tx) noteLease(sessionID string, l leaseRow) {
	if t.leases == nil {
		t.leases = map[string]leaseRow{}
	}
	t.leases[sessionID] = l
}

func (t *tx) LeaseAcquire(sessionID, holder string, ttl time.Duration) (store.Lease, error) {
	l := store.Lease{SessionID: sessionID, Holder: holder, ExpiresAt: t.At.Add(ttl)}
	cur, err := t.lease(sessionID)
	if err != nil {
		return l, err
	}
	switch {
	case !cur.exists:
		l.Token = 1
		_, err = t.exec(`INSERT INTO leases (session_id, holder, token, expires_at) VALUES (?, ?, ?, ?)`, sessionID, holder, l.Token, ms(l.ExpiresAt))
	case cur.holder == holder && cur.expires > ms(t.At):
		l.Token = cur.token
		_, err = t.exec(`UPDATE leases SET expires_at = ? WHERE session_id = ?`, ms(l.ExpiresAt), sessionID)
	case cur.expires > ms(t.At) && t.nodeLive(cur.holder):
		return l, store.ErrConflict
	default: // free, expired, or its holder's liveness record expired
		l.Token = cur.token + 1
		_, err = t.exec(`UPDATE leases SET holder = ?, token = ?, expires_at = ? WHERE session_id = ?`, holder, l.Token, ms(l.ExpiresAt), sessionID)
	}
	if err != nil {
		return l, fmt.Errorf("acquire lease %s: %w", sessionID, err)
	}
	t.noteLease(sessionID, leaseRow{holder: holder, token: l.Token, expires: ms(l.ExpiresAt), exists: true})
	t.Wakes.Hold(sessionID)
	return l, nil
}

func (t *tx) LeaseCheck(l store.Lease) error {
	cur, err := t.lease(l.SessionID)
	if err != nil {
		return fmt.Errorf("check lease: %w", err)
	}
	if !cur.exists || cur.holder != l.Holder || cur.token != l.Token || cur.expires <= ms(t.At) {
		return store.ErrLeaseLost
	}
	if t.Writable {
		t.Wakes.Hold(l.SessionID)
	}
	return nil
}

// LeaseRenew renews as store.Shared does and notes the lease it renewed.
func (t *tx) LeaseRenew(l store.Lease, ttl time.Duration) (store.Lease, error) {
	l, err := t.Shared.LeaseRenew(l, ttl)
	if err == nil {
		t.noteLease(l.SessionID, leaseRow{holder: l.Holder, token: l.Token, expires: ms(l.ExpiresAt), exists: true})
	}
	return l, err
}

func (t *tx) LeaseRelease(l store.Lease) error {
	t.Wakes.Let(l.SessionID)
	// Keep the row (and its token) so the next holder's token is higher.
	res, err := t.exec(`UPDATE leases SET expires_at = 0 WHERE session_id = ? AND holder = ? AND token = ?`, l.SessionID, l.Holder, l.Token)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 1 {
		t.noteLease(l.SessionID, leaseRow{holder: l.Holder, token: l.Token, exists: true})
	}
	return nil
}

// uncounted is q without counting its statements (they are not the
// transaction's own).
func uncounted(q querier) querier {
	if c, ok := q.(counted); ok {
		return c.q
	}
	return q
}
