package sqlitestore

import (
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/rtcagent/rtcagent/internal/store"
)

// knownInbox are sessions' inbox items, all of a session's in queue order,
// as the writer last committed or read them: like knownRows, true while this
// store is the database's one writer, since only this file's statements
// write the inbox. A write transaction finds a known session's next item
// without reading it. In tests every session's items taken from it are
// checked against the database.
type knownInbox map[string][]store.InboxItem

// items returns the session's inbox items as this transaction sees them (a
// slice it must not change in place: changes make a new one).
func (t *tx) items(sessionID string) ([]store.InboxItem, error) {
	if items, ok := t.inbox[sessionID]; ok {
		return items, nil
	}
	if items, ok := t.knownItems(sessionID); ok {
		read := func(q querier) ([]store.InboxItem, error) { return t.readItems(q, sessionID) }
		if err := checkKnown(t, "the inbox of", sessionID, items, read, slices.Equal); err != nil {
			return nil, err
		}
		t.noteItems(sessionID, items)
		return items, nil
	}
	items, err := t.readItems(t.q, sessionID)
	if err == nil {
		t.noteItems(sessionID, items)
	}
	return items, err
}

func (t *tx) readItems(q querier, sessionID string) ([]store.InboxItem, error) {
	rows, err := q.QueryContext(t.Ctx, `SELECT id, session_id, kind, turn_id, created_at FROM inbox WHERE session_id = ? ORDER BY id`, sessionID)
	if err != nil {
		return nil, fmt.Errorf("inbox of %s: %w", sessionID, err)
	}
	defer rows.Close()
	var out []store.InboxItem
	for rows.Next() {
		var it store.InboxItem
		var created int64
		if err := rows.Scan(&it.ID, &it.SessionID, &it.Kind, &it.TurnID, &created); err != nil {
			return nil, err
		}
		it.CreatedAt = time.UnixMilli(created).UTC()
		out = append(out, it)
	}
	return out, rows.Err()
}

func (t *tx) noteItems(sessionID string, items []store.InboxItem) {
	if t.inbox == nil {
		t.inbox = map[string][]store.InboxItem{}
	}
	t.inbox[sessionID] = items
}

func (t *tx) InboxInsert(item *store.InboxItem) error {
	if !t.Writable {
		return errReadOnly
	}
	item.CreatedAt = time.UnixMilli(ms(t.At)).UTC() // as the row keeps it
	if t.notes != nil {
		// A prepared run notes both kinds of the session's items, so that a
		// write that queued one of either kind meanwhile sends it to the
		// writer: the session's ids keep their commit order.
		if _, err := t.items(item.SessionID); err != nil {
			return err
		}
		t.resumesOf(item.SessionID)
	}
	item.ID = t.inboxID.Add(1)
	if item.Kind == store.KindTurnResume { // kept in memory (resumes.go): no row to read or write
		t.noteResumes(item.SessionID, append(slices.Clip(t.resumesOf(item.SessionID)), *item))
	} else {
		items, err := t.items(item.SessionID)
		if err != nil {
			return err
		}
		if _, err := t.exec(`INSERT INTO inbox (session_id, id, kind, turn_id, created_at) VALUES (?, ?, ?, ?, ?)`,
			item.SessionID, item.ID, item.Kind, item.TurnID, ms(t.At)); err != nil {
			return fmt.Errorf("insert inbox item: %w", err)
		}
		t.noteItems(item.SessionID, append(slices.Clip(items), *item))
	}
	t.Wakes.Add(item.SessionID)
	return nil
}

func (t *tx) InboxNext(sessionID string) (*store.InboxItem, error) {
	items, err := t.items(sessionID)
	if err != nil {
		return nil, err
	}
	resumes := t.resumesOf(sessionID)
	switch {
	case len(resumes) > 0 && (len(items) == 0 || resumes[0].ID < items[0].ID):
		it := resumes[0]
		return &it, nil
	case len(items) > 0:
		it := items[0]
		return &it, nil
	}
	return nil, store.ErrNotFound
}

func (t *tx) InboxDelete(it store.InboxItem) error { return t.deleteItem(it.SessionID, it.ID) }

func (t *tx) deleteItem(sessionID string, id int64) error {
	if !t.Writable {
		return errReadOnly
	}
	if resumes := t.resumesOf(sessionID); slices.ContainsFunc(resumes, func(it store.InboxItem) bool { return it.ID == id }) {
		t.noteResumes(sessionID, slices.DeleteFunc(slices.Clone(resumes), func(it store.InboxItem) bool { return it.ID == id }))
		return nil
	}
	items, err := t.items(sessionID)
	if err != nil {
		return err
	}
	if _, err := t.exec(`DELETE FROM inbox WHERE session_id = ? AND id = ?`, sessionID, id); err != nil {
		return err
	}
	t.noteItems(sessionID, slices.DeleteFunc(slices.Clone(items), func(it store.InboxItem) bool { return it.ID == id }))
	return nil
}

func (t *tx) InboxFinish(id int64, l store.Lease, released *bool) error {
	*released = false
	if err := t.deleteItem(l.SessionID, id); err != nil {
		return err
	}
	if _, err := t.InboxNext(l.SessionID); !errors.Is(err, store.ErrNotFound) {
		return err
	}
	*released = true
	return t.LeaseRelease(l)
}
