package sqlitestore

import (
	"fmt"
	"slices"

	"github.com/rtcagent/rtcagent/internal/protocol"
	"github.com/rtcagent/rtcagent/internal/store"
)

// knownSeqs are sessions' highest message and turn seqs ("messages/<session>",
// "turns/<session>") as the writer last committed or read them, and
// knownOpen the ids of turns' open RTCs in seq order, as it last committed
// or read them. Like knownRows they are true while this store is the
// database's one writer: every insert of a message or turn and every insert
// or change of an RTC is one of this package's (or store.Shared's, through
// the overrides below), and none of those rows is ever deleted. A step reads
// its message's seq and a result its turn's open calls without a statement.
// Only the group's leader uses them; a write that rolls back leaves them as
// they were, and a commit that fails clears them. In tests every value taken
// from them is checked against the database.
type (
	knownSeqs map[string]int64
	knownOpen map[string][]openRTC
)

// openRTC is an open RTC of a turn as knownOpen lists it.
type openRTC struct {
	id  string
	seq int
}

func (t *tx) maxSeq(table, sessionID string) (int64, error) {
	key := table + "/" + sessionID
	if n, ok := t.seqs[key]; ok {
		return n, nil
	}
	read := func(q querier) (int64, error) {
		var n int64
		err := q.QueryRowContext(t.Ctx, store.MaxSeqSQL(table), sessionID).Scan(&n)
		return n, err
	}
	n, ok := t.knownSeq(key)
	if ok {
		if err := checkKnown(t, "the highest seq of", key, n, read, func(a, b int64) bool { return a == b }); err != nil {
			return 0, err
		}
	} else {
		var err error
		if n, err = read(t.q); err != nil {
			return 0, err
		}
	}
	t.noteSeq(key, n)
	return n, nil
}

func (t *tx) noteSeq(key string, n int64) {
	if !t.Writable {
		return
	}
	if t.seqs == nil {
		t.seqs = map[string]int64{}
	}
	t.seqs[key] = n
}

// raiseSeq notes an inserted row's seq when the session's highest is known.
func (t *tx) raiseSeq(table, sessionID string, seq int64) {
	key := table + "/" + sessionID
	n, ok := t.seqs[key]
	if !ok {
		n, ok = t.knownSeq(key)
	}
	if ok {
		t.noteSeq(key, max(n, seq))
	}
}

func (t *tx) TurnInsert(tr *protocol.Turn) error {
	if err := t.Shared.TurnInsert(tr); err != nil {
		return err
	}
	if data, ok := t.Rows.Get("turn", tr.ID); ok {
		t.wrote("turn", tr.ID, data, tr)
	}
	t.raiseSeq("turns", tr.SessionID, tr.Seq)
	t.turnWritten(tr)
	t.noteOpen(tr.ID, []openRTC{}) // a new turn has no calls: its open ones are known from the start
	return nil
}

func (t *tx) TurnMaxSeq(sessionID string) (int64, error) { return t.maxSeq("turns", sessionID) }

func (t *tx) MessageMaxSeq(sessionID string) (int64, error) { return t.maxSeq("messages", sessionID) }

// RTCListOpenByTurn lists the turn's open RTCs by seq: from the writer's
// memory when it knows them (each read as RTCGet reads it), from the table
// otherwise.
func (t *tx) RTCListOpenByTurn(turnID string) ([]protocol.RTC, error) {
	const query = `SELECT data FROM rtcs WHERE turn_id = ? AND open = 1 ORDER BY seq`
	if !t.Writable {
		return listJSON[protocol.RTC](t, query, turnID)
	}
	ids, ok := t.open[turnID]
	if !ok {
		ids, ok = t.knownOpenOf(turnID)
		if ok {
			read := func(q querier) ([]openRTC, error) { return t.readOpen(q, turnID) }
			if err := checkKnown(t, "the open calls of", turnID, ids, read, slices.Equal); err != nil {
				return nil, err
			}
		}
	}
	if !ok {
		list, err := listJSON[protocol.RTC](t, query, turnID)
		if err != nil {
			return nil, err
		}
		ids = make([]openRTC, len(list))
		for i, r := range list {
			ids[i] = openRTC{r.ID, r.Seq}
		}
		t.noteOpen(turnID, ids)
		return list, nil
	}
	t.noteOpen(turnID, ids)
	out := make([]protocol.RTC, len(ids))
	for i, o := range ids {
		r, err := t.RTCGet(o.id)
		if err != nil {
			return nil, fmt.Errorf("open rtc %s of turn %s: %w", o.id, turnID, err)
		}
		out[i] = *r
	}
	return out, nil
}

func (t *tx) readOpen(q querier, turnID string) ([]openRTC, error) {
	rows, err := q.QueryContext(t.Ctx, `SELECT id, seq FROM rtcs WHERE turn_id = ? AND open = 1 ORDER BY seq`, turnID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []openRTC
	for rows.Next() {
		var o openRTC
		if err := rows.Scan(&o.id, &o.seq); err != nil {
			return nil, err
		}
		out = append(out, o)
	}
	return out, rows.Err()
}

func (t *tx) noteOpen(turnID string, ids []openRTC) {
	if t.open == nil {
		t.open = map[string][]openRTC{}
	}
	t.open[turnID] = ids
}

// openChanged keeps the turn's known open calls in step with r, as written:
// listed while open, in seq order, left out once ended. A turn whose open
// calls are not known stays unknown. It relies on what the lifecycle
// holds: an RTC's turn and seq never change (no update writes them), and an
// ended call never opens again (protocol.RTCTransitionAllowed); in tests a
// list that drifted otherwise fails the next read of it.
func (t *tx) openChanged(r *protocol.RTC) {
	ids, ok := t.open[r.TurnID]
	if !ok {
		if ids, ok = t.knownOpenOf(r.TurnID); !ok {
			return
		}
	}
	i := slices.IndexFunc(ids, func(o openRTC) bool { return o.id == r.ID })
	switch open := !protocol.RTCTerminal(r.Status); {
	case i >= 0 && !open:
		ids = slices.Delete(slices.Clone(ids), i, i+1)
	case i < 0 && open:
		// After those of the same seq, as the table's order (seq, then
		// insertion) lists them.
		j := len(ids)
		for j > 0 && ids[j-1].seq > r.Seq {
			j--
		}
		ids = slices.Insert(slices.Clone(ids), j, openRTC{r.ID, r.Seq})
	default:
		return
	}
	t.noteOpen(r.TurnID, ids)
}

func (t *tx) RTCInsert(r *protocol.RTC) error {
	if err := t.Shared.RTCInsert(r); err != nil {
		return err
	}
	if data, ok := t.Rows.Get("rtc", r.ID); ok {
		t.wrote("rtc", r.ID, data, r)
	}
	t.openChanged(r)
	return nil
}
