package sqlitestore

import (
	"errors"
	"slices"

	"github.com/rtcagent/rtcagent/internal/protocol"
	"github.com/rtcagent/rtcagent/internal/store"
)

// knownQueued are sessions' queued turns, in seq order, as the writer last
// committed them. Like knownStreaming they are true while this store is the
// database's one writer: turns are written only by TurnInsert and
// TurnUpdate, a turn's seq never changes and no turn is deleted. A
// session's list is known from its insert (a new session has no turn), so a
// turn's end finds the next queued turn (TurnNextQueued) without a
// statement. In tests every answer from them is checked against the
// database.
type knownQueued map[string][]queuedTurn

// queuedTurn is a queued turn as knownQueued lists it.
type queuedTurn struct {
	id  string
	seq int64
}

// queuedOf returns the session's queued turns as this transaction sees
// them, if known.
func (t *tx) queuedOf(sessionID string) ([]queuedTurn, bool) {
	if l, ok := t.queued[sessionID]; ok {
		return l, true
	}
	return fromMemory(t, t.knownQueued, sessionID, func(n *notes) *noted[string, []queuedTurn] { return &n.queued })
}

func (t *tx) noteQueued(sessionID string, l []queuedTurn) {
	if t.queued == nil {
		t.queued = map[string][]queuedTurn{}
	}
	t.queued[sessionID] = l
}

// turnWritten keeps the session's known queued turns in step with tr, as
// written by this transaction.
func (t *tx) turnWritten(tr *protocol.Turn) {
	l, ok := t.queuedOf(tr.SessionID)
	if !ok {
		return
	}
	i := slices.IndexFunc(l, func(q queuedTurn) bool { return q.id == tr.ID })
	queued := tr.Status == protocol.TurnQueued
	if i >= 0 == queued {
		return
	}
	if queued {
		j := len(l)
		for j > 0 && l[j-1].seq > tr.Seq {
			j--
		}
		l = slices.Insert(slices.Clone(l), j, queuedTurn{tr.ID, tr.Seq})
	} else {
		l = slices.Delete(slices.Clone(l), i, i+1)
	}
	t.noteQueued(tr.SessionID, l)
}

// TurnNextQueued returns the session's oldest queued turn (store.Turns):
// from the writer's memory when it knows the session's.
func (t *tx) TurnNextQueued(sessionID string) (*protocol.Turn, error) {
	l, ok := t.queuedOf(sessionID)
	if !t.Writable || !ok {
		return t.Shared.TurnNextQueued(sessionID)
	}
	next := ""
	if len(l) > 0 {
		next = l[0].id
	}
	read := func(q querier) (string, error) {
		tr, err := t.on(q).Shared.TurnNextQueued(sessionID)
		if errors.Is(err, store.ErrNotFound) {
			return "", nil
		}
		return tr.ID, err
	}
	if err := checkKnown(t, "the next queued turn of", sessionID, next, read, func(a, b string) bool { return a == b }); err != nil {
		return nil, err
	}
	if next == "" {
		return new(protocol.Turn), store.ErrNotFound
	}
	return t.TurnGet(next)
}
