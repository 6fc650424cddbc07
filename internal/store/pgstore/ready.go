package pgstore

import (
	"fmt"
	"slices"

	"github.com/jackc/pgx/v5"

	"github.com/rtcagent/rtcagent/internal/store"
)

// The ready queue (migration 007) lists the sessions whose work waits for a
// claim. A transaction changes it in one statement sent with its COMMIT, after
// every lock it took, so its rows are the last a transaction locks and never
// stand between a lease row and a user stream row (doc.go, "Lock order"):
//   - the sessions it woke without holding their lease go on the queue (a
//     session already there stays, its gen bumped);
//   - the sessions it claimed come off: their holder drains what is there and
//     what comes;
//   - the sessions whose item it deleted, or that it claimed and gave back,
//     come off when they have no item left.
//
// A row comes off only at the gen its statement saw: work queued by a
// transaction that committed meanwhile bumped it, and the session stays.
// InboxFinish takes its session off in its own statement, which a drain sends
// with its commit.
//
// A lease given back with work left (LeaseRelease) puts its session back on,
// in the place of its oldest item (it waited since then), never after now,
// and tells the other nodes (delivered if the transaction commits), so one
// with a slot free takes it. One statement does this for every lease the
// transaction gave back, before the other changes: a session woken as well
// keeps the earlier place.

// readyChanges are a transaction's changes to the ready queue.
type readyChanges struct {
	claimed, emptied []string
	released         []store.Lease
	// notified counts the notifications of leases given back with work left.
	notified int
}

// requeueReleased ($1 sessions, $2 holders, $3 tokens, $4 the channel) puts
// on the ready queue the sessions whose lease the transaction gave back (it
// still reads as given back with the transaction's token) and that have work
// left, and notifies each; it returns how many.
const requeueReleased = `WITH given AS (SELECT DISTINCT g.session_id FROM unnest($1::text[], $2::text[], $3::bigint[]) AS g(session_id, holder, token)
		JOIN leases l ON l.session_id = g.session_id AND l.holder = g.holder AND l.token = g.token AND l.expires_at = 'epoch'),
	queued AS (INSERT INTO ready (session_id, since)
		SELECT g.session_id, LEAST(o.created_at, now()) FROM given g
		CROSS JOIN LATERAL (SELECT created_at FROM inbox WHERE session_id = g.session_id ORDER BY id LIMIT 1) o
		ORDER BY g.session_id
		ON CONFLICT (session_id) DO UPDATE SET gen = ready.gen + 1, since = LEAST(ready.since, excluded.since)
		RETURNING session_id),
	notified AS (SELECT pg_notify($4, session_id) FROM queued)
	SELECT count(*) FROM notified`

// queueReady queues, before COMMIT, the transaction's changes to the ready
// queue.
func (t *tx) queueReady() {
	if rs := t.ready.released; len(rs) > 0 {
		ids, holders, tokens := make([]string, len(rs)), make([]string, len(rs)), make([]int64, len(rs))
		for i, l := range rs {
			ids[i], holders[i], tokens[i] = l.SessionID, l.Holder, l.Token
		}
		t.pending = append(t.pending, deferred{sql: requeueReleased, args: []any{ids, holders, tokens, t.channel},
			row:    func(r pgx.Row) error { return r.Scan(&t.ready.notified) },
			mapErr: func(err error) error { return fmt.Errorf("requeue released sessions: %w", err) }})
	}
	woken := t.Wakes.Pending()
	// A session claimed and given back (a claim that found its inbox empty)
	// comes off only with no work: an item committed meanwhile keeps it on,
	// where requeueReleased put it.
	claimed := make([]string, 0, len(t.ready.claimed))
	emptied := slices.Clone(t.ready.emptied)
	for _, id := range t.ready.claimed {
		if slices.ContainsFunc(t.ready.released, func(l store.Lease) bool { return l.SessionID == id }) {
			emptied = append(emptied, id)
		} else {
			claimed = append(claimed, id)
		}
	}
	emptied = slices.DeleteFunc(emptied, func(id string) bool { return slices.Contains(woken, id) }) // new work keeps it on
	if len(woken)+len(claimed)+len(emptied) == 0 {
		return
	}
	_ = t.later(nil, `WITH off AS (DELETE FROM ready r
			WHERE (r.session_id = ANY($1) OR r.session_id = ANY($2)
				AND NOT EXISTS (SELECT 1 FROM inbox i WHERE i.session_id = r.session_id))
			AND r.gen = (SELECT g.gen FROM ready g WHERE g.session_id = r.session_id))
		INSERT INTO ready (session_id) SELECT DISTINCT unnest($3::text[])
		ON CONFLICT (session_id) DO UPDATE SET gen = ready.gen + 1`,
		claimed, emptied, woken)
}
