package sqlitestore

import (
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/rtcagent/rtcagent/internal/protocol"
	"github.com/rtcagent/rtcagent/internal/store"
)

func (t *tx) RTCListOpenByTurn(turnID string) ([]protocol.RTC, error) {
	return listJSON[protocol.RTC](t, `SELECT data FROM rtcs WHERE turn_id = ? AND open = 1 ORDER BY seq`, turnID)
}

func (t *tx) RTCListOpenByUser(userID string, limit int) ([]protocol.RTC, error) {
	return listJSON[protocol.RTC](t, `SELECT data FROM rtcs WHERE user_id = ? AND open = 1 ORDER BY ord LIMIT ?`, userID, limit)
}

func (t *tx) RTCListExpired(now time.Time, limit int) ([]protocol.RTC, error) {
	return listJSON[protocol.RTC](t, `SELECT data FROM rtcs WHERE open = 1 AND deadline_at IS NOT NULL AND deadline_at <= ? ORDER BY deadline_at LIMIT ?`, ms(now), limit)
}

// An RTC's change sets only the columns it can change: SQLite rewrites every
// index entry of a row whose indexed or index-filtering columns are set,
// changed or not. A call not yet ended is open, not ended and, when it
// carries its record, audited (retention prunes only ended calls): a change
// from an open status leaves open and ended_at alone unless it ends the call,
// and audited alone when it is what the change would make it. A row that is
// not so (a record pruned, an ended call changed) is updated whole.
const (
	rtcUpdateOpen  = `UPDATE rtcs SET status = $2, deadline_at = $4, created_at = $6, data = $8 WHERE id = $1 AND status = $9 AND audited = $5`
	rtcUpdateEnd   = `UPDATE rtcs SET status = $2, open = $3, deadline_at = $4, created_at = $6, ended_at = $7, data = $8 WHERE id = $1 AND status = $9 AND audited = $5`
	rtcUpdateWhole = `UPDATE rtcs SET ` + store.SQLRTCUpdateSet + ` WHERE id = $1 AND status = $9`
)

func (t *tx) RTCUpdate(r *protocol.RTC, expectStatus string) error {
	args, _ := store.RTCUpdateArgs(r, expectStatus, t.D.Time)
	res, err := t.updateRTC(r, expectStatus, args)
	if err = t.casResult(res, err, "rtcs", r.ID); err == nil {
		t.Audits = store.WithAudit(t.Audits, r)
	}
	return err
}

func (t *tx) updateRTC(r *protocol.RTC, expectStatus string, args []any) (sql.Result, error) {
	if !protocol.RTCTerminal(expectStatus) {
		q := rtcUpdateOpen
		if protocol.RTCTerminal(r.Status) {
			q = rtcUpdateEnd
		}
		res, err := t.exec(q, args...)
		if err != nil {
			return nil, err
		}
		if n, _ := res.RowsAffected(); n == 1 {
			return res, nil
		}
	}
	return t.exec(rtcUpdateWhole, args...)
}

func (t *tx) InboxInsert(item *store.InboxItem) error {
	if !t.Writable {
		return errReadOnly
	}
	item.CreatedAt = t.At
	item.ID = *t.inboxID + 1
	if _, err := t.exec(`INSERT INTO inbox (session_id, id, kind, turn_id, created_at) VALUES (?, ?, ?, ?, ?)`,
		item.SessionID, item.ID, item.Kind, item.TurnID, ms(t.At)); err != nil {
		return fmt.Errorf("insert inbox item: %w", err)
	}
	*t.inboxID = item.ID
	t.Wakes.Add(item.SessionID)
	return nil
}

func (t *tx) InboxNext(sessionID string) (*store.InboxItem, error) {
	var it store.InboxItem
	var created int64
	err := t.q.QueryRowContext(t.Ctx, store.SQLInboxNext, sessionID).Scan(&it.ID, &it.SessionID, &it.Kind, &it.TurnID, &created)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, store.ErrNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("next inbox item: %w", err)
	}
	it.CreatedAt = time.UnixMilli(created).UTC()
	return &it, nil
}

func (t *tx) InboxDelete(it store.InboxItem) error { return t.deleteItem(it.SessionID, it.ID) }

func (t *tx) deleteItem(sessionID string, id int64) error {
	_, err := t.exec(`DELETE FROM inbox WHERE session_id = ? AND id = ?`, sessionID, id)
	return err
}

func (t *tx) InboxFinish(id int64, l store.Lease, released *bool) error {
	*released = false
	if err := t.deleteItem(l.SessionID, id); err != nil {
		return err
	}
	if _, err := t.InboxNext(l.SessionID); !errors.Is(err, store.ErrNotFound) {
		return err
	}
	*released = true
	return t.LeaseRelease(l)
}

func (t *tx) InboxSessions(limit int) ([]string, error) {
	rows, err := t.q.QueryContext(t.Ctx, `SELECT i.session_id FROM inbox i
		LEFT JOIN leases l ON l.session_id = i.session_id AND l.expires_at > ?
			AND NOT EXISTS (SELECT 1 FROM nodes n WHERE n.node_id = l.holder AND n.expires_at <= ?)
		WHERE l.session_id IS NULL GROUP BY i.session_id ORDER BY MIN(i.id) LIMIT ?`, ms(t.At), ms(t.At), limit)
	if err != nil {
		return nil, fmt.Errorf("inbox sessions: %w", err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		out = append(out, id)
	}
	return out, rows.Err()
}

func (t *tx) LeaseAcquire(sessionID, holder string, ttl time.Duration) (store.Lease, error) {
	l := store.Lease{SessionID: sessionID, Holder: holder, ExpiresAt: t.At.Add(ttl)}
	var curHolder string
	var token, expires int64
	err := t.q.QueryRowContext(t.Ctx, `SELECT holder, token, expires_at FROM leases WHERE session_id = ?`, sessionID).Scan(&curHolder, &token, &expires)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		l.Token = 1
		_, err = t.exec(`INSERT INTO leases (session_id, holder, token, expires_at) VALUES (?, ?, ?, ?)`, sessionID, holder, l.Token, ms(l.ExpiresAt))
	case err != nil:
	case curHolder == holder && expires > ms(t.At):
		l.Token = token
		_, err = t.exec(`UPDATE leases SET expires_at = ? WHERE session_id = ?`, ms(l.ExpiresAt), sessionID)
	case expires > ms(t.At) && t.nodeLive(curHolder):
		return l, store.ErrConflict
	default: // free, expired, or its holder's liveness record expired
		l.Token = token + 1
		_, err = t.exec(`UPDATE leases SET holder = ?, token = ?, expires_at = ? WHERE session_id = ?`, holder, l.Token, ms(l.ExpiresAt), sessionID)
	}
	if err != nil {
		return l, fmt.Errorf("acquire lease %s: %w", sessionID, err)
	}
	t.Wakes.Hold(sessionID)
	return l, nil
}

func (t *tx) LeaseCheck(l store.Lease) error {
	var n int
	err := t.q.QueryRowContext(t.Ctx, `SELECT count(*) FROM leases WHERE session_id = ? AND holder = ? AND token = ? AND expires_at > ?`,
		l.SessionID, l.Holder, l.Token, ms(t.At)).Scan(&n)
	if err != nil {
		return fmt.Errorf("check lease: %w", err)
	}
	if n != 1 {
		return store.ErrLeaseLost
	}
	if t.Writable {
		t.Wakes.Hold(l.SessionID)
	}
	return nil
}

func (t *tx) LeaseRelease(l store.Lease) error {
	t.Wakes.Let(l.SessionID)
	// Keep the row (and its token) so the next holder's token is higher.
	_, err := t.exec(`UPDATE leases SET expires_at = 0 WHERE session_id = ? AND holder = ? AND token = ?`, l.SessionID, l.Holder, l.Token)
	return err
}

// nodeLive reports whether node's leases count as live: it has no liveness
// record (its leases last their TTL) or an unexpired one. A failed read counts
// as live, so an error never frees a lease.
func (t *tx) nodeLive(node string) bool {
	var expires int64
	err := t.q.QueryRowContext(t.Ctx, `SELECT expires_at FROM nodes WHERE node_id = ?`, node).Scan(&expires)
	if errors.Is(err, sql.ErrNoRows) {
		return true
	}
	return err != nil || expires > ms(t.At)
}
