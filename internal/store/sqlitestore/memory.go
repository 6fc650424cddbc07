package sqlitestore

import (
	"github.com/rtcagent/rtcagent/internal/store"
)

// A write transaction reads the writer's memory of the database through
// these: the writer's own directly (it alone changes the memory), a prepared
// run's (prepared.go) under the memory's read lock, noting what it read.

func (t *tx) knownStream(userID string) (*streamState, bool) {
	if t.notes == nil {
		return t.known.get(userID)
	}
	s := t.notes.s
	st, ok := look(&t.notes.streams, userID, func() (streamState, bool) {
		s.mem.RLock()
		defer s.mem.RUnlock()
		st, ok := s.known[userID]
		return st, ok
	})
	if !ok {
		return nil, false
	}
	return &st, true
}

// knownRow returns the writer's row key and a copy of it.
func (t *tx) knownRow(key store.RowKey) (*store.DecodedRow, store.DecodedRow, bool) {
	if t.notes == nil {
		kr := t.rows.m[key]
		if kr == nil {
			return nil, store.DecodedRow{}, false
		}
		return kr, *kr, true
	}
	s := t.notes.s
	n, ok := look(&t.notes.rows, key, func() (rowNote, bool) {
		s.mem.RLock()
		defer s.mem.RUnlock()
		kr := s.rows.m[key]
		if kr == nil {
			return rowNote{}, false
		}
		return rowNote{p: kr, v: *kr}, true
	})
	return n.p, n.v, ok
}

// keepDecoded sets the value the writer's row kr decodes to, once decoded
// (the writer's: a prepared run leaves the memory as it is).
func (t *tx) keepDecoded(kr *store.DecodedRow, v any) {
	if t.notes != nil {
		return
	}
	t.mem.Lock()
	kr.Value = v
	t.mem.Unlock()
}

func (t *tx) knownItems(sessionID string) ([]store.InboxItem, bool) {
	if t.notes == nil {
		items, ok := t.knownInbox[sessionID]
		return items, ok
	}
	s := t.notes.s
	return look(&t.notes.inbox, sessionID, func() ([]store.InboxItem, bool) {
		s.mem.RLock()
		defer s.mem.RUnlock()
		items, ok := s.inbox[sessionID]
		return items, ok
	})
}

func (t *tx) knownSeq(key string) (int64, bool) {
	if t.notes == nil {
		n, ok := t.knownSeqs[key]
		return n, ok
	}
	s := t.notes.s
	return look(&t.notes.seqs, key, func() (int64, bool) {
		s.mem.RLock()
		defer s.mem.RUnlock()
		n, ok := s.seqs[key]
		return n, ok
	})
}

func (t *tx) knownOpenOf(turnID string) ([]openRTC, bool) {
	if t.notes == nil {
		ids, ok := t.knownOpen[turnID]
		return ids, ok
	}
	s := t.notes.s
	return look(&t.notes.open, turnID, func() ([]openRTC, bool) {
		s.mem.RLock()
		defer s.mem.RUnlock()
		ids, ok := s.open[turnID]
		return ids, ok
	})
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
