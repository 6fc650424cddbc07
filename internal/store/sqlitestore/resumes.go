package sqlitestore

import (
	"context"
	"fmt"
	"time"

	"github.com/rtcagent/rtcagent/internal/protocol"
	"github.com/rtcagent/rtcagent/internal/store"
)

// A turn's resumption (store.KindTurnResume) is the one inbox item the rows
// already say: a session has one while its turn waits with no open call, or
// runs having taken it. So the writer keeps these items in memory, as it
// keeps leases, and writes no row for them: the commit that ends a step's
// last call and the step that takes the item each run one statement fewer
// and change one B-tree fewer. When the writer starts (after a crash the
// rows are all there is) it derives them from the turns (deriveResumes).
// A row of such an item an earlier release wrote stays an item of the table
// until it is taken.

// resumeTable is the sessions' resume items, staged per group commit
// (staged: a session mapped to no items had them deleted). A claim pass
// (heads) sees the group's new items too, before they commit: a session
// with work must not be missed between the commit and the table's update,
// and one that turns out to have none is allowed
// (store.Inbox.InboxSessions).
type resumeTable struct {
	staged[[]store.InboxItem]
	ready bool // m was derived: this store is the file's writer
}

func newResumeTable() resumeTable {
	return resumeTable{staged: staged[[]store.InboxItem]{gone: func(items []store.InboxItem) bool { return len(items) == 0 }}}
}

// derived sets the table to what the writer derived when it started.
func (rt *resumeTable) derived(m map[string][]store.InboxItem) {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	rt.m, rt.ready = m, true
}

// heads returns each session's oldest item id, committed or queued by the
// group being committed, and false when the table was not derived (this
// store has not written yet).
func (rt *resumeTable) heads() (map[string]int64, bool) {
	rt.mu.RLock()
	defer rt.mu.RUnlock()
	out := make(map[string]int64, len(rt.m)+len(rt.group))
	for id, items := range rt.m {
		out[id] = items[0].ID
	}
	for id, items := range rt.group {
		if _, ok := out[id]; !ok && len(items) > 0 {
			out[id] = items[0].ID
		}
	}
	return out, rt.ready
}

// resumesOf returns the session's resume items as this transaction sees them.
func (t *tx) resumesOf(sessionID string) []store.InboxItem {
	if items, ok := t.resumes[sessionID]; ok {
		return items
	}
	return t.tableResumes(sessionID)
}

// noteResumes records the session's resume items as this transaction leaves
// them.
func (t *tx) noteResumes(sessionID string, items []store.InboxItem) {
	if t.resumes == nil {
		t.resumes = map[string][]store.InboxItem{}
	}
	t.resumes[sessionID] = items
}

// deriveResumes reads the resume items the rows say (see above): for each
// turn that waits with no open call, and each running turn (its step was cut
// off), unless an item of the table names it already: a resume an earlier
// release wrote as a row, or the start item a running turn took. A turn a
// tool's view started (kind app) ends with its call and never resumes.
//
// The items are numbered before every item of the table, from -n up to -1
// in the order the turns were created (the table's ids start at 1): a
// running turn had taken its item before anything its step queued (a view's
// call, an approved server call), and those run once the step is done, as
// they did before the process ended.
func deriveResumes(ctx context.Context, q querier, at time.Time) (map[string][]store.InboxItem, error) {
	rows, err := q.QueryContext(ctx, `SELECT t.session_id, t.id FROM turns t
		WHERE (t.status = ? AND NOT EXISTS (SELECT 1 FROM rtcs r WHERE r.turn_id = t.id AND r.open = 1) OR t.status = ?)
		AND NOT EXISTS (SELECT 1 FROM inbox i WHERE i.session_id = t.session_id AND i.turn_id = t.id AND (i.kind = ? OR i.kind = ? AND t.status = ?))
		AND json_extract(t.data, '$.kind') IS NOT ?
		ORDER BY t.rowid`, protocol.TurnWaiting, protocol.TurnRunning, store.KindTurnResume, store.KindTurnStart, protocol.TurnRunning, protocol.TurnKindApp)
	if err != nil {
		return nil, fmt.Errorf("derive resume items: %w", err)
	}
	defer rows.Close()
	var items []store.InboxItem
	for rows.Next() {
		it := store.InboxItem{Kind: store.KindTurnResume, CreatedAt: time.UnixMilli(ms(at)).UTC()}
		if err := rows.Scan(&it.SessionID, &it.TurnID); err != nil {
			return nil, err
		}
		items = append(items, it)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	out := map[string][]store.InboxItem{}
	for i, it := range items {
		it.ID = int64(i - len(items))
		out[it.SessionID] = append(out[it.SessionID], it)
	}
	return out, nil
}
