package pgstore

import (
	"cmp"
	"errors"
	"slices"

	"github.com/jackc/pgx/v5"

	"github.com/rtcagent/rtcagent/internal/protocol"
	"github.com/rtcagent/rtcagent/internal/store"
)

// Prefetch queues the reads p names to go right after the user stream lock
// (or, when the transaction holds it already, with the next statement): in
// the exchange that takes the lock, and read after it, so they see what the
// lock's previous holder committed. Their answers are kept for the
// transaction, which brings them up to date with its own writes.
func (t *tx) Prefetch(p store.Prefetch) {
	if !t.Writable || t.failed != nil {
		return
	}
	// One statement each, sent as one with the session's read (fuse.go).
	var ds []deferred
	if p.Turn != "" {
		ds = append(ds, deferred{sql: `SELECT id, data FROM turns WHERE id = $1`, args: []any{p.Turn},
			row: func(r pgx.Row) error {
				var id string
				var data []byte
				err := r.Scan(&id, &data)
				if err == nil && len(t.locked) > 0 {
					t.Rows.Put("turn", id, data)
				}
				return noRowsIsNil(err)
			}})
	}
	seq := func(table, sessionID string, into *seqs) {
		ds = append(ds, deferred{sql: store.MaxSeqSQL(table), args: []any{sessionID},
			row: func(r pgx.Row) error {
				var n int64
				err := r.Scan(&n)
				if err == nil && len(t.locked) > 0 {
					into.put(sessionID, n)
				}
				return err
			}})
	}
	if p.MessageSeq != "" {
		seq("messages", p.MessageSeq, &t.seqs)
	}
	if p.TurnSeq != "" {
		seq("turns", p.TurnSeq, &t.turnSeqs)
	}
	if p.TurnOfRTC != "" {
		// The turn and its open calls in one row; RTCGet of the RTC answers
		// from them when it is open. With them, the session's lease and
		// whether its inbox is empty, for the turn's adoption (guess.go).
		ds = append(ds, deferred{sql: `SELECT t.id, t.data, o.ids, o.seqs, o.datas,
				r.session_id, l.holder, l.token, l.expires_at,
				EXISTS (SELECT 1 FROM nodes n WHERE n.node_id = l.holder AND n.expires_at <= $2) AS dead,
				NOT EXISTS (SELECT 1 FROM inbox i WHERE i.session_id = r.session_id) AS empty
			FROM rtcs r
			JOIN turns t ON t.id = r.turn_id
			LEFT JOIN LATERAL (SELECT array_agg(id ORDER BY seq) AS ids, array_agg(seq ORDER BY seq) AS seqs,
				array_agg(data ORDER BY seq) AS datas FROM rtcs WHERE turn_id = r.turn_id AND open) o ON true
			LEFT JOIN leases l ON l.session_id = r.session_id
			WHERE r.id = $1`, args: []any{p.TurnOfRTC, t.At}, row: t.keepTurnAndOpen})
		t.rtcAhead = p.TurnOfRTC
	}
	if p.OpenRTCsOf != "" {
		ds = append(ds, deferred{sql: `SELECT array_agg(id ORDER BY seq), array_agg(seq ORDER BY seq), array_agg(data ORDER BY seq)
			FROM rtcs WHERE turn_id = $1 AND open`, args: []any{p.OpenRTCsOf},
			row: func(r pgx.Row) error {
				var ids, datas []string
				var seqs []int
				if err := r.Scan(&ids, &seqs, &datas); err != nil {
					return noRowsIsNil(err)
				}
				t.keepOpen(p.OpenRTCsOf, ids, seqs, datas)
				return nil
			}})
	}
	if p.ClientID != "" {
		key := clientKey(p.ClientUser, p.ClientID)
		ds = append(ds, deferred{sql: store.SQLMessageByClientID, args: []any{p.ClientUser, p.ClientID},
			row: func(r pgx.Row) error {
				var data []byte
				if err := r.Scan(&data); err != nil && !errors.Is(err, pgx.ErrNoRows) {
					return err
				}
				if len(t.locked) > 0 {
					if t.clientMsgs == nil {
						t.clientMsgs = map[string][]byte{}
					}
					t.clientMsgs[key] = data // nil: no such message
				}
				return nil
			}})
	}
	if p.Adopt != "" {
		ds = append(ds, deferred{sql: `SELECT l.holder, l.token, l.expires_at,
				EXISTS (SELECT 1 FROM nodes n WHERE n.node_id = l.holder AND n.expires_at <= $2) AS dead,
				NOT EXISTS (SELECT 1 FROM inbox i WHERE i.session_id = $1) AS empty
			FROM (SELECT 1) AS z LEFT JOIN leases l ON l.session_id = $1`, args: []any{p.Adopt, t.At},
			row: func(r pgx.Row) error {
				var a aheadRow
				if err := r.Scan(a.dest()...); err != nil {
					return noRowsIsNil(err)
				}
				t.keepAhead(p.Adopt, a)
				return nil
			}})
	}
	for i := range ds {
		ds[i].optional = true // kept only when read after the lock (see above)
	}
	if len(t.locked) > 0 {
		t.pending = append(t.pending, ds...)
	} else {
		t.wants = append(t.wants, ds...)
	}
}

// afterLock queues the prefetched reads behind the stream lock just queued or
// taken. What they read is kept only if the lock was taken (t.locked): a lock
// queued by lockThrough may find no stream, and a read without it may be out
// of date.
func (t *tx) afterLock() {
	t.pending, t.wants = append(t.pending, t.wants...), nil
}

func (t *tx) keepTurnAndOpen(r pgx.Row) error {
	var turnID, sessionID string
	var turn []byte
	var ids, datas []string
	var seqs []int
	var a aheadRow
	if err := r.Scan(append([]any{&turnID, &turn, &ids, &seqs, &datas, &sessionID}, a.dest()...)...); err != nil {
		return noRowsIsNil(err)
	}
	t.keepAhead(sessionID, a)
	if len(t.locked) > 0 {
		t.Rows.Put("turn", turnID, turn)
	}
	t.keepOpen(turnID, ids, seqs, datas)
	return nil
}

// keepOpen keeps a turn's open calls read after the stream lock (array_agg's
// columns: none read is NULL, an empty list).
func (t *tx) keepOpen(turnID string, ids []string, seqs []int, datas []string) {
	if len(t.locked) == 0 {
		return
	}
	list := make([]openRTC, len(ids))
	for i := range ids {
		list[i] = openRTC{id: ids[i], seq: seqs[i], data: []byte(datas[i])}
	}
	if t.openRTCs == nil {
		t.openRTCs = openRTCs{}
	}
	t.openRTCs[turnID] = list
}

// openRTCs holds, by turn, the open calls a transaction read under the
// turn's user stream lock, by seq, kept up to date with its writes of calls.
type openRTCs map[string][]openRTC

type openRTC struct {
	id   string
	seq  int
	data []byte
}

// get returns the turn's open calls, when they were read.
func (o openRTCs) get(d *decodedRows, turnID string) ([]protocol.RTC, bool, error) {
	list, ok := o[turnID]
	if !ok {
		return nil, false, nil
	}
	out := make([]protocol.RTC, len(list))
	for i, c := range list {
		r, err := decodeRow[protocol.RTC](d, "rtc", c.id, c.data)
		if err != nil {
			return nil, true, err
		}
		out[i] = *r
	}
	return out, true, nil
}

// find returns an RTC's data from the lists read, when it is there (open).
func (o openRTCs) find(id string) ([]byte, bool) {
	for _, list := range o {
		for _, c := range list {
			if c.id == id {
				return c.data, true
			}
		}
	}
	return nil, false
}

// put brings the turn's list, when it was read, up to date with a write of r.
func (o openRTCs) put(r *protocol.RTC, data []byte) {
	list, ok := o[r.TurnID]
	if !ok {
		return
	}
	if data == nil {
		data, _ = r.StoredJSON()
	}
	list = slices.DeleteFunc(list, func(c openRTC) bool { return c.id == r.ID })
	if !protocol.RTCTerminal(r.Status) {
		i, _ := slices.BinarySearchFunc(list, r.Seq, func(c openRTC, seq int) int { return cmp.Compare(c.seq, seq) })
		list = slices.Insert(list, i, openRTC{id: r.ID, seq: r.Seq, data: data})
	}
	o[r.TurnID] = list
}

// seqs holds the highest message (or turn) seq of sessions, read or written by the
// transaction.
type seqs map[string]int64

func (s *seqs) put(sessionID string, n int64) {
	if *s == nil {
		*s = seqs{}
	}
	(*s)[sessionID] = n
}

// wrote raises the session's highest seq, when it was read, to a message written.
func (s seqs) wrote(sessionID string, seq int64) {
	if n, ok := s[sessionID]; ok && seq > n {
		s[sessionID] = seq
	}
}
