package pgstore

import "slices"

// The ready queue (migration 007) lists the sessions whose work waits for a
// claim. A transaction changes it in one statement sent with its COMMIT, after
// every lock it took, so its rows are the last a transaction locks and never
// stand between a lease row and a user stream row (doc.go, "Lock order"):
//   - the sessions it woke without holding their lease go on the queue (a
//     session already there stays, its gen bumped);
//   - the sessions it claimed come off: their holder drains what is there and
//     what comes;
//   - the sessions whose item it deleted come off when they have no item left.
//
// A row comes off only at the gen its statement saw: work queued by a
// transaction that committed meanwhile bumped it, and the session stays.
// InboxFinish takes its session off in its own statement, which a drain sends
// with its commit, and LeaseRelease puts work left back on in its statement.

// readyChanges are a transaction's changes to the ready queue.
type readyChanges struct {
	claimed, emptied []string
}

// queueReady queues, before COMMIT, the transaction's changes to the ready
// queue.
func (t *tx) queueReady() {
	woken := t.Wakes.Pending()
	emptied := make([]string, 0, len(t.ready.emptied))
	for _, id := range t.ready.emptied {
		if !slices.Contains(woken, id) { // new work keeps it on
			emptied = append(emptied, id)
		}
	}
	if len(woken)+len(t.ready.claimed)+len(emptied) == 0 {
		return
	}
	_ = t.later(nil, `WITH off AS (DELETE FROM ready r
			WHERE (r.session_id = ANY($1) OR r.session_id = ANY($2)
				AND NOT EXISTS (SELECT 1 FROM inbox i WHERE i.session_id = r.session_id))
			AND r.gen = (SELECT g.gen FROM ready g WHERE g.session_id = r.session_id))
		INSERT INTO ready (session_id) SELECT DISTINCT unnest($3::text[])
		ON CONFLICT (session_id) DO UPDATE SET gen = ready.gen + 1`,
		t.ready.claimed, emptied, woken)
}
