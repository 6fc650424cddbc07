package sqlitestore

import (
	"database/sql"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/rtcagent/rtcagent/internal/store"
)

// Leases live in the writer process, not in the file. The store is its
// database's one writer process (takeWriter), and a lease fences the workers
// of that process: when the process ends, every lease it held ends with it.
// So a lease needs no row, and a transition that takes, checks, renews or
// gives back a lease writes no page and runs no statement for it; a process
// that opens the file after a crash finds every session free at once.

// leaseRow is a session's lease.
type leaseRow struct {
	holder  string
	token   int64
	expires int64 // Unix milliseconds
	exists  bool  // the session has a lease (false once given back)
}

// leaseTable is the store's leases: what its committed writes (and the writes
// of the group being committed) left. Only the writer changes it; read
// transactions look at it under mu. Tokens come from one counter, so a
// session's next holder has a higher token than every one before it, also
// after the session's lease was given back and dropped from the table.
type leaseTable struct {
	mu    sync.RWMutex
	m     map[string]leaseRow
	token int64                // the last token given (the writer's)
	undo  map[string]*leaseRow // the group's changed leases as they were (nil: none), until it commits
}

func (lt *leaseTable) get(sessionID string) leaseRow {
	lt.mu.RLock()
	defer lt.mu.RUnlock()
	return lt.m[sessionID]
}

// keep applies what a write of the group left, remembering what it replaced
// until the group commits (committed) or is rolled back (rollBack).
func (lt *leaseTable) keep(staged map[string]leaseRow) {
	if len(staged) == 0 {
		return
	}
	lt.mu.Lock()
	defer lt.mu.Unlock()
	if lt.m == nil {
		lt.m = map[string]leaseRow{}
	}
	if lt.undo == nil {
		lt.undo = map[string]*leaseRow{}
	}
	for id, l := range staged {
		if _, ok := lt.undo[id]; !ok {
			var was *leaseRow
			if old, ok := lt.m[id]; ok {
				was = &old
			}
			lt.undo[id] = was
		}
		if l.exists {
			lt.m[id] = l
		} else {
			delete(lt.m, id)
		}
	}
}

// committed drops what the group replaced: its commit took effect.
func (lt *leaseTable) committed() {
	lt.mu.Lock()
	lt.undo = nil
	lt.mu.Unlock()
}

// rollBack puts back what the group replaced: its commit failed.
func (lt *leaseTable) rollBack() {
	lt.mu.Lock()
	defer lt.mu.Unlock()
	for id, was := range lt.undo {
		if was == nil {
			delete(lt.m, id)
		} else {
			lt.m[id] = *was
		}
	}
	lt.undo = nil
}

// held returns the sessions whose lease runs past at, with their holders.
func (lt *leaseTable) held(at int64) map[string]string {
	lt.mu.RLock()
	defer lt.mu.RUnlock()
	out := map[string]string{}
	for id, l := range lt.m {
		if l.expires > at {
			out[id] = l.holder
		}
	}
	return out
}

// lease returns the session's lease as this transaction sees it.
func (t *tx) lease(sessionID string) leaseRow {
	if l, ok := t.leases[sessionID]; ok {
		return l
	}
	return t.leaseTab.get(sessionID)
}

// noteLease records the session's lease as this transaction leaves it.
func (t *tx) noteLease(sessionID string, l leaseRow) {
	if t.leases == nil {
		t.leases = map[string]leaseRow{}
	}
	t.leases[sessionID] = l
}

func (t *tx) LeaseAcquire(sessionID, holder string, ttl time.Duration) (store.Lease, error) {
	l := store.Lease{SessionID: sessionID, Holder: holder, ExpiresAt: t.At.Add(ttl)}
	if !t.Writable {
		return l, errReadOnly
	}
	cur := t.lease(sessionID)
	switch {
	case cur.exists && cur.holder == holder && cur.expires > ms(t.At):
		l.Token = cur.token
	case cur.exists && cur.expires > ms(t.At) && t.nodeLive(cur.holder):
		return l, store.ErrConflict
	default: // free, expired, or its holder's liveness record expired
		t.leaseTab.token++
		l.Token = t.leaseTab.token
	}
	t.noteLease(sessionID, leaseRow{holder: holder, token: l.Token, expires: ms(l.ExpiresAt), exists: true})
	t.Wakes.Hold(sessionID)
	return l, nil
}

func (t *tx) LeaseCheck(l store.Lease) error {
	cur := t.lease(l.SessionID)
	if !cur.exists || cur.holder != l.Holder || cur.token != l.Token || cur.expires <= ms(t.At) {
		return store.ErrLeaseLost
	}
	if t.Writable {
		t.Wakes.Hold(l.SessionID)
	}
	return nil
}

func (t *tx) LeaseRenew(l store.Lease, ttl time.Duration) (store.Lease, error) {
	if !t.Writable {
		return l, errReadOnly
	}
	if err := t.LeaseCheck(l); err != nil {
		return l, err
	}
	l.ExpiresAt = t.At.Add(ttl)
	t.noteLease(l.SessionID, leaseRow{holder: l.Holder, token: l.Token, expires: ms(l.ExpiresAt), exists: true})
	return l, nil
}

func (t *tx) LeaseRelease(l store.Lease) error {
	if !t.Writable {
		return errReadOnly
	}
	t.Wakes.Let(l.SessionID)
	if cur := t.lease(l.SessionID); cur.exists && cur.holder == l.Holder && cur.token == l.Token {
		t.noteLease(l.SessionID, leaseRow{})
	}
	return nil
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

// InboxSessions reads the sessions with inbox items, oldest work first, as
// many more than limit (none: below 0) as there are live leases, and leaves
// out those whose lease is live (held by a live node).
func (t *tx) InboxSessions(limit int) ([]string, error) {
	at := ms(t.At)
	held := t.leaseTab.held(at)
	for id, l := range t.leases { // this transaction's own
		if l.exists && l.expires > at {
			held[id] = l.holder
		} else {
			delete(held, id)
		}
	}
	read := -1 // no limit
	if limit >= 0 {
		read = limit + len(held)
	}
	rows, err := t.q.QueryContext(t.Ctx, `SELECT session_id FROM inbox GROUP BY session_id ORDER BY MIN(id) LIMIT ?`, read)
	if err != nil {
		return nil, fmt.Errorf("inbox sessions: %w", err)
	}
	var ids []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			rows.Close()
			return nil, err
		}
		ids = append(ids, id)
	}
	if err := rows.Close(); err != nil {
		return nil, err
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	live := map[string]bool{}
	out := ids[:0]
	for _, id := range ids {
		if holder, ok := held[id]; ok {
			if _, known := live[holder]; !known {
				live[holder] = t.nodeLive(holder)
			}
			if live[holder] {
				continue
			}
		}
		if limit < 0 || len(out) < limit {
			out = append(out, id)
		}
	}
	return out, nil
}

// uncounted is q without counting its statements (they are not the
// transaction's own).
func uncounted(q querier) querier {
	if c, ok := q.(counted); ok {
		return c.q
	}
	return q
}
