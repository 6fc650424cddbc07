package sqlitestore_test

import (
	"context"
	"database/sql"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rtcagent/rtcagent/internal/store"
	"github.com/rtcagent/rtcagent/internal/store/sqlitestore"
)

// The Topic's reads and deletes find a user's updates by the (user_id, offset)
// index: none scans the table, whose rows are in the order they were written
// (migration 010), so an append writes its last page.
func TestUpdatesFoundByUserAndOffset(t *testing.T) {
	db := migrated(t)
	for _, q := range []string{
		`SELECT payload FROM updates WHERE user_id = 'u' AND offset > 3 ORDER BY offset LIMIT 10`,
		`SELECT MAX(offset) FROM updates WHERE user_id = 'u'`,
		`DELETE FROM updates WHERE user_id = 'u' AND offset <= 3`,
		`DELETE FROM updates WHERE user_id = 'u'`,
	} {
		if p := planOf(t, db, q); !strings.Contains(p, "updates_user_offset") || strings.Contains(p, "SCAN updates") {
			t.Errorf("%s: %s", q, p)
		}
	}
}

// Audit records, which are RTC rows (migration 011), are found by index: a
// user's by the partial index of audited rows, a session's by the session's
// calls, one by its call's id, and retention's by the end of audited calls.
func TestAuditFoundByIndexes(t *testing.T) {
	db := migrated(t)
	ms := func(at time.Time) any { return at.UnixMilli() }
	since := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		q     store.AuditQuery
		index string
	}{
		{store.AuditQuery{UserID: "u"}, "rtcs_user"},
		{store.AuditQuery{UserID: "u", Since: since, AfterRTC: "r1", Limit: 10}, "rtcs_user"},
		{store.AuditQuery{SessionID: "s"}, "rtcs_session"},
		{store.AuditQuery{UserID: "u", SessionID: "s", AfterRTC: "r1"}, "rtcs_"},
	} {
		q, args := store.AuditListSQL(c.q, ms)
		if p := planOf(t, db, q, args...); !strings.Contains(p, "SEARCH rtcs USING INDEX "+c.index) {
			t.Errorf("%+v: %s", c.q, p)
		}
	}
	for q, index := range map[string]string{store.SQLAuditGet: "sqlite_autoindex_rtcs", store.SQLAuditPrune: "rtcs_audit_ended"} {
		if p := planOf(t, db, q, "r1"); !strings.Contains(p, "SEARCH rtcs USING INDEX "+index) {
			t.Errorf("%s: %s", q, p)
		}
	}
}

// A turn's calls, all or the open ones, are a range of one index in seq
// order (migration 014), and no call's row is read to be left out: a new
// call writes one entry for its turn.
func TestTurnsCallsFoundByOneIndex(t *testing.T) {
	db := migrated(t)
	for _, q := range []string{store.SQLRTCListByTurn, `SELECT data FROM rtcs WHERE turn_id = $1 AND open = 1 ORDER BY seq`} {
		if p := planOf(t, db, q, "t1"); p != "SEARCH rtcs USING INDEX rtcs_turn (turn_id=?)" {
			t.Errorf("%s: %s", q, p)
		}
	}
}

// The open calls are one index (migration 015): a user's are a range of
// it, and the deadline sweep reads it whole, never the table.
func TestOpenCallsFoundByOneIndex(t *testing.T) {
	db := migrated(t)
	for q, want := range map[string]string{
		`SELECT data FROM rtcs WHERE user_id = 'u' AND open = 1 ORDER BY ord LIMIT 10`:                                        "SEARCH rtcs USING INDEX rtcs_open (user_id=?)",
		`SELECT data FROM rtcs WHERE open = 1 AND deadline_at IS NOT NULL AND deadline_at <= 5 ORDER BY deadline_at LIMIT 10`: "SCAN rtcs USING INDEX rtcs_open",
	} {
		if p := planOf(t, db, q); !strings.HasPrefix(p, want) {
			t.Errorf("%s: %s", q, p)
		}
	}
}

// migrated returns a database of the current schema.
func migrated(t *testing.T) *sql.DB {
	t.Helper()
	path := filepath.Join(t.TempDir(), "test.db")
	s, err := sqlitestore.Open(context.Background(), path, sqlitestore.Options{Now: time.Now})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// planOf is SQLite's plan of q, its steps joined by "; ".
func planOf(t *testing.T, db *sql.DB, q string, args ...any) string {
	t.Helper()
	rows, err := db.Query(`EXPLAIN QUERY PLAN `+q, args...)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var plan []string
	for rows.Next() {
		var id, parent, unused int
		var detail string
		if err := rows.Scan(&id, &parent, &unused, &detail); err != nil {
			t.Fatal(err)
		}
		plan = append(plan, detail)
	}
	return strings.Join(plan, "; ")
}
