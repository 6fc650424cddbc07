package sqlitestore

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rtcagent/rtcagent/internal/protocol"
	"github.com/rtcagent/rtcagent/internal/store"
)

type querier interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// counted is a querier that counts each statement by table (store.TableCounts).
type counted struct{ q querier }

func (c counted) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	store.CountStatement(query)
	return c.q.ExecContext(ctx, query, args...)
}

func (c counted) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	store.CountStatement(query)
	return c.q.QueryContext(ctx, query, args...)
}

func (c counted) QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row {
	store.CountStatement(query)
	return c.q.QueryRowContext(ctx, query, args...)
}

type tx struct {
	// Shared holds and does what both stores do alike, through driver
	// (driver.go).
	store.Shared
	q       querier
	streams map[string]*streamState // user streams read or written in this transaction
	// known are the writer's committed stream positions (write transactions
	// only); streamsUnknown: this transaction changed streams without
	// tracking them (a prune), so they are read again after it.
	known          knownStreams
	streamsUnknown bool
	inboxID        *atomic.Int64                     // the store's newest inbox item id (write transactions)
	rows           *knownRows                        // the writer's known rows (write transactions)
	leaseTab       *leaseTable                       // the store's leases
	leases         map[string]leaseRow               // leases read or written here
	resumeTab      *resumeTable                      // the store's resume items
	resumes        map[string][]store.InboxItem      // sessions' resume items changed here
	knownInbox     knownInbox                        // the writer's known inbox items (write transactions)
	inbox          map[string][]store.InboxItem      // sessions' items read or written here
	decoded        map[store.RowKey]store.DecodedRow // rows written or decoded here, decoded (wrote, decodedAs)
	knownSeqs      knownSeqs                         // the writer's known highest seqs (write transactions)
	seqs           map[string]int64                  // highest seqs read or raised here
	knownOpen      knownOpen                         // the writer's known open calls of turns (write transactions)
	open           map[string][]openRTC              // turns' open calls read or changed here
	knownStreaming knownStreaming                    // the writer's known streaming messages of sessions (write transactions)
	streaming      map[string][]streamingMsg         // sessions' streaming messages read or changed here
	knownMsgSeqs   knownMessageSeqs                  // the writer's known seqs of messages (write transactions)
	msgSeqs        map[string]int64                  // messages' seqs read or written here
	knownQueued    knownQueued                       // the writer's known queued turns of sessions (write transactions)
	queued         map[string][]queuedTurn           // sessions' queued turns read or changed here
	// notes: this is a prepared run (prepared.go), which reads the writer's
	// memory through them; mem: the memory's lock (the writer's
	// transactions).
	notes *notes
	mem   *sync.RWMutex
}

// streamState is a user's stream as this transaction sees it. Its top offset is
// not stored: it is the newest update's offset, or the floor when no update is
// kept (pruned or reset), so an append writes only its update. Offsets assigned
// here raise top in memory.
type streamState struct {
	pos    store.StreamPos
	exists bool // the row is in the table
}

var errReadOnly = errors.New("sqlitestore: write in a read transaction")

func (t *tx) exec(query string, args ...any) (sql.Result, error) {
	if !t.Writable {
		return nil, errReadOnly
	}
	return t.q.ExecContext(t.Ctx, query, args...)
}

func ms(tm time.Time) int64 { return tm.UnixMilli() }

// stream returns the user's stream row, creating it on first write.
func (t *tx) stream(userID string, create bool) (*streamState, error) {
	st := t.streams[userID]
	if st == nil && !t.streamsUnknown {
		st, _ = t.knownStream(userID)
	}
	if st == nil {
		st = &streamState{exists: true}
		err := t.q.QueryRowContext(t.Ctx, `SELECT epoch, floor, MAX(floor, COALESCE((SELECT MAX(offset) FROM updates WHERE user_id = s.user_id), 0))
			FROM user_streams s WHERE user_id = ?`, userID).Scan(&st.pos.Epoch, &st.pos.Floor, &st.pos.Top)
		if errors.Is(err, sql.ErrNoRows) {
			st = &streamState{pos: store.StreamPos{Epoch: t.Epoch}}
		} else if err != nil {
			return nil, fmt.Errorf("user stream %s: %w", userID, err)
		}
	}
	if t.streams[userID] == nil {
		if t.streams == nil {
			t.streams = map[string]*streamState{}
		}
		t.streams[userID] = st
	}
	if create && !st.exists {
		if _, err := t.exec(`INSERT INTO user_streams (user_id, epoch, floor) VALUES (?, ?, 0)`, userID, st.pos.Epoch); err != nil {
			return nil, fmt.Errorf("user stream %s: %w", userID, err)
		}
		st.exists = true
	}
	return st, nil
}

func (t *tx) NextOffset(userID string) (int64, error) {
	st, err := t.stream(userID, t.Writable)
	if err != nil {
		return 0, err
	}
	if u, ok := t.Batch.Open(userID); ok {
		return u.Offset, nil
	}
	return st.pos.Top + 1, nil
}

// UpdateAppend adds the change to the user's open update (store.Batch), written
// when it is sealed.
func (t *tx) UpdateAppend(userID, typ string, data any) (protocol.Update, error) {
	if !t.Writable {
		return protocol.Update{}, errReadOnly
	}
	st, err := t.stream(userID, true)
	if err != nil {
		return protocol.Update{}, err
	}
	u, opened, err := t.Batch.Add(userID, st.pos.Epoch, st.pos.Top+1, typ, data)
	if err != nil {
		return protocol.Update{}, err
	}
	if opened {
		st.pos.Top = u.Offset
	}
	return u, nil
}

// writeUpdate writes a sealed update (store.Batch).
func (t *tx) writeUpdate(u protocol.Update, payload []byte) error {
	if _, err := t.exec(`INSERT INTO updates (user_id, offset, payload, created_at) VALUES (?, ?, ?, ?)`, u.UserID, u.Offset, payload, ms(t.At)); err != nil {
		return fmt.Errorf("insert update: %w", err)
	}
	return nil
}

func (t *tx) UpdateOpen(userID string) (protocol.Update, bool) { return t.Batch.Open(userID) }

func (t *tx) StreamGet(userID string) (store.StreamPos, error) {
	st, err := t.stream(userID, t.Writable)
	if err != nil {
		return store.StreamPos{}, err
	}
	return st.pos, nil
}

func (t *tx) StreamReset(userID string) (store.StreamPos, error) {
	st, err := t.stream(userID, true)
	if err != nil {
		return store.StreamPos{}, err
	}
	if err := t.Batch.Seal(userID, t.writeUpdate); err != nil {
		return store.StreamPos{}, err
	}
	p := st.pos
	p.Epoch = store.NewEpoch()
	p.Floor = p.Top
	if _, err := t.exec(store.SQLStreamDrop, userID); err != nil {
		return p, err
	}
	if _, err := t.exec(store.SQLStreamNewEpoch, userID, p.Epoch, p.Floor); err != nil {
		return p, err
	}
	st.pos.Epoch, st.pos.Floor = p.Epoch, p.Floor
	return p, nil
}

func (t *tx) UpdateList(userID string, since int64, limit, maxBytes int) ([]protocol.Update, store.StreamPos, error) {
	st, err := t.stream(userID, false)
	if err != nil {
		return nil, store.StreamPos{}, err
	}
	p := st.pos
	rows, err := t.q.QueryContext(t.Ctx, `SELECT payload FROM updates WHERE user_id = ? AND offset > ? ORDER BY offset LIMIT ?`, userID, since, limit)
	if err != nil {
		return nil, p, fmt.Errorf("list updates: %w", err)
	}
	defer rows.Close()
	var out []protocol.Update
	size := 0
	for rows.Next() {
		var payload []byte
		if err := rows.Scan(&payload); err != nil {
			return nil, p, err
		}
		// Rows are read one at a time: stopping here reads no further payload.
		if size += len(payload); maxBytes > 0 && size > maxBytes && len(out) > 0 {
			break
		}
		var u protocol.Update
		if err := json.Unmarshal(payload, &u); err != nil {
			return nil, p, fmt.Errorf("decode update: %w", err)
		}
		u.UserID = userID
		out = append(out, u)
	}
	return out, p, rows.Err()
}

// UpdatePrune deletes, per user, the oldest updates up to the first one created
// at or after before, keeping at least the newest keep, and raises the stream's
// floor to the last offset it deleted. Only a stream's oldest updates go, so the
// retained history has no holes even when the clock went back between appends.
// Each stream is found from its floor on its primary key: no index on the age
// of updates, which every append would write.
func (t *tx) UpdatePrune(before time.Time, keep int) (int64, error) {
	if !t.Writable {
		return 0, errReadOnly
	}
	// The stream rows are read again after the floors changed, here and by
	// the writer's next transactions.
	defer clear(t.streams)
	t.streamsUnknown = true
	rows, err := t.q.QueryContext(t.Ctx, `SELECT user_id, floor, cut FROM (
		SELECT s.user_id, s.floor, MIN(
			COALESCE((SELECT MAX(u.offset) FROM updates u WHERE u.user_id = s.user_id), s.floor) - ?,
			COALESCE((SELECT u.offset - 1 FROM updates u WHERE u.user_id = s.user_id AND u.offset > s.floor
				AND u.created_at >= ? ORDER BY u.offset LIMIT 1),
				(SELECT MAX(u.offset) FROM updates u WHERE u.user_id = s.user_id), s.floor)) AS cut
		FROM user_streams s) WHERE cut > floor`, keep, ms(before))
	if err != nil {
		return 0, fmt.Errorf("prune updates: %w", err)
	}
	type cut struct {
		user       string
		floor, cut int64
	}
	var cuts []cut
	for rows.Next() {
		var c cut
		if err := rows.Scan(&c.user, &c.floor, &c.cut); err != nil {
			rows.Close()
			return 0, err
		}
		cuts = append(cuts, c)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return 0, fmt.Errorf("prune updates: %w", err)
	}
	var n int64
	for _, c := range cuts {
		res, err := t.exec(`DELETE FROM updates WHERE user_id = ? AND offset <= ?`, c.user, c.cut)
		if err != nil {
			return n, fmt.Errorf("prune updates of %s: %w", c.user, err)
		}
		d, _ := res.RowsAffected()
		n += d
		if _, err := t.exec(`UPDATE user_streams SET floor = ? WHERE user_id = ?`, c.cut, c.user); err != nil {
			return n, fmt.Errorf("raise floor of %s: %w", c.user, err)
		}
	}
	return n, nil
}

// casResult maps an UPDATE … WHERE status = ? result to ErrConflict/ErrNotFound.
func (t *tx) casResult(res sql.Result, err error, table, id string) error {
	if err != nil {
		return fmt.Errorf("update %s %s: %w", table, id, err)
	}
	if n, _ := res.RowsAffected(); n == 1 {
		return nil
	}
	var one int
	if err := t.q.QueryRowContext(t.Ctx, `SELECT 1 FROM `+table+` WHERE id = ?`, id).Scan(&one); errors.Is(err, sql.ErrNoRows) {
		return store.ErrNotFound
	}
	return store.ErrConflict
}

// Prefetch does nothing: reads are calls into this process, with no exchange
// to save.
func (t *tx) Prefetch(store.Prefetch) {}
