package pgstore

import (
	"time"

	"github.com/rtcagent/rtcagent/internal/protocol"
	"github.com/rtcagent/rtcagent/internal/store"
)

// A transaction that ends a call, or sends a message, often queues work for
// the session and adopts it: it takes the session's lease and the item it
// just queued (session.Runner.Adopt), then brings the turn to running. Asked
// in turn, the lease and the item's place in the inbox cost an exchange of
// their own between the transaction's writes and the turn's. The prefetch
// (TurnOfRTC, Adopt) reads, under the user's stream lock, the session's lease
// row and whether its inbox is empty. From those LeaseAcquire guesses the
// lease's new token and InboxInsert that the item is the session's oldest, so
// InboxNext answers without asking. A message's send also reads its client_id
// with the lock (Prefetch.ClientID), and MessageInsert guesses the key unused
// instead of waiting to learn whether it is a duplicate. The statements that
// make the guesses true go with the turn's writes and COMMIT, each failing
// (RA412) unless it finds what was guessed. Write then runs the transaction
// again without guessing, reading each answer as it comes: a wrong guess
// costs a retry, never a write made on a false premise.

// sessionAhead is what the prefetch read of a session.
type sessionAhead struct {
	leased     bool // a lease row exists
	holder     string
	token      int64
	expires    time.Time
	deadHolder bool // the holder's liveness record expired
	empty      bool // no inbox item
}

// guessedToken is the token LeaseAcquire by holder would give the lease, and
// whether it would get it at all (false: held by another live holder, or no
// row yet; asked, not guessed).
func (a sessionAhead) guessedToken(holder string, now time.Time) (int64, bool) {
	switch {
	case !a.leased:
		return 0, false
	case a.holder == holder && a.expires.After(now):
		return a.token, true // the holder extending its live lease keeps the token
	case a.holder == holder || !a.expires.After(now) || a.deadHolder:
		return a.token + 1, true
	}
	return 0, false
}

// aheadRow is the prefetch's columns of a session (Prefetch: TurnOfRTC,
// Adopt): its lease row's holder, token and expiry (NULL without a row),
// whether the holder's liveness record expired, whether its inbox is empty.
type aheadRow struct {
	holder      *string
	token       *int64
	expires     *time.Time
	dead, empty bool
}

func (r *aheadRow) dest() []any { return []any{&r.holder, &r.token, &r.expires, &r.dead, &r.empty} }

// keepAhead keeps a prefetched session's columns read under the stream lock.
func (t *tx) keepAhead(sessionID string, r aheadRow) {
	if !t.guess || len(t.locked) == 0 {
		return
	}
	a := sessionAhead{empty: r.empty, deadHolder: r.dead}
	if r.holder != nil && r.token != nil && r.expires != nil {
		a.leased, a.holder, a.token, a.expires = true, *r.holder, *r.token, *r.expires
	}
	if t.ahead == nil {
		t.ahead = map[string]sessionAhead{}
	}
	t.ahead[sessionID] = a
}

// leaseTaken ($1 session, $2 holder, $3 expiry, $4 now, $5 the token read, $6
// the token guessed) is LeaseAcquire's update, made only on the row as it was
// read, still free to take and giving the token guessed (a holder that gave
// its lease back since gets a new token, not its old one), failing otherwise.
const leaseTaken = `WITH took AS (UPDATE leases AS l SET holder = $2, token = $6, expires_at = $3
		FROM (SELECT session_id FROM leases WHERE session_id = $1 FOR UPDATE SKIP LOCKED) AS free
		WHERE l.session_id = free.session_id AND l.token = $5 AND (l.holder = $2 OR l.expires_at <= $4
			OR EXISTS (SELECT 1 FROM nodes n WHERE n.node_id = l.holder AND n.expires_at <= $4))
			AND CASE WHEN l.holder = $2 AND l.expires_at > $4 THEN l.token ELSE l.token + 1 END = $6
		RETURNING 1)
	SELECT CASE WHEN EXISTS (SELECT 1 FROM took) THEN true
		ELSE rtcagent_fail('RA412', 'lease of session ' || $1 || ' changed since it was read') END`

// guessLease is LeaseAcquire from the prefetched lease row: the lease and
// true, its update queued, when the row says it can be taken.
func (t *tx) guessLease(sessionID, holder string, ttl time.Duration) (store.Lease, bool) {
	a, ok := t.ahead[sessionID]
	if !ok {
		return store.Lease{}, false
	}
	token, ok := a.guessedToken(holder, t.At)
	if !ok {
		return store.Lease{}, false
	}
	l := store.Lease{SessionID: sessionID, Holder: holder, ExpiresAt: t.At.Add(ttl), Token: token}
	t.pending = append(t.pending, deferred{sql: leaseTaken,
		args: []any{sessionID, holder, l.ExpiresAt, t.At, a.token, token}, mapErr: serverCheck})
	return l, true
}

func clientKey(userID, clientID string) string { return userID + "\x00" + clientID }

// messageNewClientID ($1-$7 as MessageInsert's) is the insert of a message
// whose client_id a prefetch read unused under the user's stream lock: it
// fails unless the key is still unused.
const messageNewClientID = `WITH ins AS (INSERT INTO messages (id, session_id, user_id, seq, status, client_id, data)
		VALUES ($1, $2, $3, $4, $5, $6, $7)
		ON CONFLICT (user_id, client_id) WHERE client_id IS NOT NULL DO NOTHING RETURNING 1)
	SELECT CASE WHEN EXISTS (SELECT 1 FROM ins) THEN true
		ELSE rtcagent_fail('RA412', 'client_id ' || $6 || ' used since it was read') END`

// guessNewClientID queues the insert of m when its client_id was read unused
// (MessageByClientID from a prefetch), instead of waiting for whether it is a
// duplicate; false when it was not read so.
func (t *tx) guessNewClientID(m *protocol.Message, clientID string, data []byte) bool {
	key := clientKey(m.UserID, clientID)
	if known, ok := t.clientMsgs[key]; !t.guess || !ok || known != nil {
		return false
	}
	t.pending = append(t.pending, deferred{sql: messageNewClientID,
		args: []any{m.ID, m.SessionID, m.UserID, m.Seq, m.Status, clientID, store.Text(data)}, mapErr: serverCheck})
	t.clientMsgs[key] = data
	return true
}

// inboxFirst ($1-$4 as InboxInsert's) is InboxInsert's insert when the
// session's inbox was read empty: it fails unless it still is.
const inboxFirst = `INSERT INTO inbox (session_id, kind, turn_id, created_at) SELECT $1, $2, $3, $4
	WHERE CASE WHEN NOT EXISTS (SELECT 1 FROM inbox WHERE session_id = $1) THEN true
		ELSE rtcagent_fail('RA412', 'inbox of session ' || $1 || ' changed since it was read') END
	RETURNING id, true`

// guessFirst reports whether item, about to be inserted, is guessed to be its
// session's oldest; InboxNext then answers with it (its ID set once sent).
func (t *tx) guessFirst(item *store.InboxItem) bool {
	a, ok := t.ahead[item.SessionID]
	if !ok || !a.empty || t.headsAhead[item.SessionID] != nil {
		return false
	}
	if t.headsAhead == nil {
		t.headsAhead = map[string]*store.InboxItem{}
	}
	t.headsAhead[item.SessionID] = item
	a.empty = false
	t.ahead[item.SessionID] = a
	return true
}
