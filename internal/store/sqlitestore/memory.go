package sqlitestore

import (
	"github.com/rtcagent/rtcagent/internal/store"
)

// A write transaction reads the writer's memory of the database through
// these: the writer's own directly (it alone changes the memory), a prepared
// run's (prepared.go) under the memory's read lock, noting what it read.
// Both hold the writer's maps (known, knownInbox, ...), which the store
// changes in place and never replaces.

func (t *tx) knownStream(userID string) (*streamState, bool) {
	if t.notes == nil {
		return t.known.get(userID)
	}
	st, ok := fromMemory(t, t.known, userID, func(n *notes) *noted[string, streamState] { return &n.streams })
	if !ok {
		return nil, false
	}
	return &st, true
}

// knownRow returns a copy of the writer's row key.
func (t *tx) knownRow(key store.RowKey) (store.DecodedRow, bool) {
	if t.notes == nil {
		kr := t.rows.m[key]
		if kr == nil {
			return store.DecodedRow{}, false
		}
		return *kr, true
	}
	n, ok := look(&t.notes.rows, key, func() (rowNote, bool) {
		t.mem.RLock()
		defer t.mem.RUnlock()
		kr := t.rows.m[key]
		if kr == nil {
			return rowNote{}, false
		}
		return rowNote{p: kr, v: *kr}, true
	})
	return n.v, ok
}

// fromMemory returns key's value in m, one of the writer's maps, which a
// prepared run reads under the memory's read lock and notes in the list
// noted gives.
func fromMemory[K comparable, V any](t *tx, m map[K]V, key K, noted func(*notes) *noted[K, V]) (V, bool) {
	if t.notes == nil {
		v, ok := m[key]
		return v, ok
	}
	return look(noted(t.notes), key, func() (V, bool) {
		t.mem.RLock()
		defer t.mem.RUnlock()
		v, ok := m[key]
		return v, ok
	})
}

func (t *tx) knownItems(sessionID string) ([]store.InboxItem, bool) {
	return fromMemory(t, t.knownInbox, sessionID, func(n *notes) *noted[string, []store.InboxItem] { return &n.inbox })
}

func (t *tx) knownSeq(key string) (int64, bool) {
	return fromMemory(t, t.knownSeqs, key, func(n *notes) *noted[string, int64] { return &n.seqs })
}

func (t *tx) knownOpenOf(turnID string) ([]openRTC, bool) {
	return fromMemory(t, t.knownOpen, turnID, func(n *notes) *noted[string, []openRTC] { return &n.open })
}

// tableLease is the session's lease in the store's table: as committed
// (reads), or as the group being committed leaves it (writes).
func (t *tx) tableLease(sessionID string) leaseRow {
	if t.notes == nil {
		return t.leaseTab.get(sessionID, t.Writable)
	}
	l, _ := look(&t.notes.leases, sessionID, func() (leaseRow, bool) { return t.leaseTab.latest(sessionID), true })
	return l
}

// tableResumes is the session's resume items in the store's table, as
// tableLease reads a lease.
func (t *tx) tableResumes(sessionID string) []store.InboxItem {
	if t.notes == nil {
		return t.resumeTab.get(sessionID, t.Writable)
	}
	items, _ := look(&t.notes.resumes, sessionID, func() ([]store.InboxItem, bool) { return t.resumeTab.latest(sessionID), true })
	return items
}
