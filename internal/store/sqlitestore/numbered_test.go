package sqlitestore_test

import (
	"database/sql"
	"testing"

	_ "modernc.org/sqlite"
)

// The statements both stores send (internal/store's sql.go) name their
// arguments as PostgreSQL does: SQLite's driver binds $n to the nth argument,
// wherever and however often it stands.
func TestNumberedArguments(t *testing.T) {
	db, err := sql.Open("sqlite", ":memory:")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var a, b, c string
	if err := db.QueryRow(`SELECT $2, $1, $2`, "one", "two").Scan(&a, &b, &c); err != nil {
		t.Fatal(err)
	}
	if a != "two" || b != "one" || c != "two" {
		t.Fatalf("SELECT $2, $1, $2 of (one, two) = %s, %s, %s", a, b, c)
	}
}
