package testsvc

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/rtcagent/rtcagent/internal/store/sqlitestore"
)

// SQLite opens a fresh SQLite store in the test's temporary directory and
// closes it when the test ends.
func SQLite(t testing.TB) *sqlitestore.Store {
	t.Helper()
	return SQLiteWith(t, sqlitestore.Options{})
}

// SQLiteWith is SQLite with the store's options (its clock, say).
func SQLiteWith(t testing.TB, o sqlitestore.Options) *sqlitestore.Store {
	t.Helper()
	st, err := sqlitestore.Open(context.Background(), filepath.Join(t.TempDir(), "s.db"), o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}
