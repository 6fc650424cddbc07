package sqlitestore

import (
	"cmp"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"sync/atomic"
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

// leaseTable is the store's leases, staged per group commit (staged): read
// transactions see only what was committed; the writer, which alone changes
// the table, sees its group's too. Tokens come from one counter, so a
// session's next holder has a higher token than every one before it, also
// after the session's lease was given back and dropped from the table.
type leaseTable struct {
	staged[leaseRow]
	token atomic.Int64 // the last token given
}

func newLeaseTable() leaseTable {
	return leaseTable{staged: staged[leaseRow]{gone: func(l leaseRow) bool { return !l.exists }}}
}

// lease returns the session's lease as this transaction sees it.
func (t *tx) lease(sessionID string) leaseRow {
	if l, ok := t.leases[sessionID]; ok {
		return l
	}
	return t.tableLease(sessionID)
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
		l.Token = t.leaseTab.token.Add(1)
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

// InboxSessions reads the sessions with inbox items, oldest work first, and
// returns the first limit (all: below 0) whose lease is not live (held by a
// live node). The leases are read after the inbox: a lease given back in
// between frees its session, one taken in between holds it, as a claim would
// find. Every session with work is read (ordering them by their oldest item
// sorts them all anyway): a limit on the read, counted from the leases before
// it, would end short when a lease is taken meanwhile, and leave out a free
// session that the limit allows. The items the writer
// keeps in memory (resumes.go) count with the table's; a store that has not
// written yet derives them from its snapshot.
func (t *tx) InboxSessions(limit int) ([]string, error) {
	rows, err := t.q.QueryContext(t.Ctx, `SELECT session_id, MIN(id) FROM inbox GROUP BY session_id ORDER BY MIN(id)`)
	if err != nil {
		return nil, fmt.Errorf("inbox sessions: %w", err)
	}
	heads, ready := t.resumeTab.heads()
	if !ready {
		derived, err := deriveResumes(t.Ctx, t.q, t.At)
		if err != nil {
			rows.Close()
			return nil, err
		}
		for id, items := range derived {
			heads[id] = items[0].ID
		}
	}
	for id, items := range t.resumes {
		if len(items) > 0 {
			heads[id] = items[0].ID
		} else {
			delete(heads, id)
		}
	}
	type head struct {
		session string
		id      int64
	}
	var work []head
	for rows.Next() {
		var h head
		if err := rows.Scan(&h.session, &h.id); err != nil {
			rows.Close()
			return nil, err
		}
		if r, ok := heads[h.session]; ok {
			h.id = min(h.id, r)
			delete(heads, h.session)
		}
		work = append(work, h)
	}
	if err := rows.Close(); err != nil {
		return nil, err
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	for id, r := range heads {
		work = append(work, head{id, r})
	}
	slices.SortFunc(work, func(a, b head) int { return cmp.Compare(a.id, b.id) })
	ids := make([]string, len(work))
	for i, h := range work {
		ids[i] = h.session
	}
	live := map[string]bool{}
	out := ids[:0]
	for _, id := range ids {
		if l := t.lease(id); l.exists && l.expires > ms(t.At) {
			if _, known := live[l.holder]; !known {
				live[l.holder] = t.nodeLive(l.holder)
			}
			if live[l.holder] {
				continue
			}
		}
		if limit >= 0 && len(out) == limit {
			break
		}
		out = append(out, id)
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
