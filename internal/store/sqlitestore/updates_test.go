package sqlitestore_test

import (
	"context"
	"database/sql"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rtcagent/rtcagent/internal/store/sqlitestore"
)

// The Topic's reads and deletes find a user's updates by the (user_id, offset)
// index: none scans the table, whose rows are in the order they were written
// (migration 010), so an append writes its last page.
func TestUpdatesFoundByUserAndOffset(t *testing.T) {
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
	defer db.Close()
	for _, q := range []string{
		`SELECT payload FROM updates WHERE user_id = 'u' AND offset > 3 ORDER BY offset LIMIT 10`,
		`SELECT MAX(offset) FROM updates WHERE user_id = 'u'`,
		`DELETE FROM updates WHERE user_id = 'u' AND offset <= 3`,
		`DELETE FROM updates WHERE user_id = 'u'`,
	} {
		rows, err := db.Query(`EXPLAIN QUERY PLAN ` + q)
		if err != nil {
			t.Fatal(err)
		}
		var plan []string
		for rows.Next() {
			var id, parent, unused int
			var detail string
			if err := rows.Scan(&id, &parent, &unused, &detail); err != nil {
				t.Fatal(err)
			}
			plan = append(plan, detail)
		}
		rows.Close()
		p := strings.Join(plan, "; ")
		if !strings.Contains(p, "updates_user_offset") || strings.Contains(p, "SCAN updates") {
			t.Errorf("%s: %s", q, p)
		}
	}
}
