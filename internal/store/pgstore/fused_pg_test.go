package pgstore_test

import (
	"context"
	"errors"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/rtcagent/rtcagent/internal/store"
	"github.com/rtcagent/rtcagent/internal/store/pgstore"
)

// A fused run is one statement that does what its members do one after
// another: each reader gets its own member's row (no row when the member
// returned none), and a failed check fails the transaction with the check's
// error and commits nothing.
func TestFusedRun(t *testing.T) {
	ctx := context.Background()
	url := serverURL(t)
	s := openStore(t, url, freshSchema(t, url), nil)
	if _, err := pgstore.Pool(s).Exec(ctx, `CREATE TABLE fa (id INT PRIMARY KEY, v TEXT); CREATE TABLE fb (id INT PRIMARY KEY);
		CREATE TABLE fc (id TEXT PRIMARY KEY, status TEXT); INSERT INTO fb VALUES (1)`); err != nil {
		t.Fatal(err)
	}
	var fresh, again, check bool
	var v string
	var got int
	before := pgstore.ReadCounts()
	err := s.Write(ctx, func(stx store.Tx) error {
		tx := pgstore.Internals(stx)
		tx.Queue(`INSERT INTO fa VALUES ($1, $2) RETURNING v = $2`, func(r pgx.Row) error { return r.Scan(&fresh) }, 1, "one")
		tx.Queue(`INSERT INTO fb VALUES ($1) ON CONFLICT (id) DO NOTHING RETURNING true`, func(r pgx.Row) error {
			if err := r.Scan(&again); !errors.Is(err, pgx.ErrNoRows) {
				t.Errorf("a member that returned no row: %v, want no rows", err)
			}
			return nil
		}, 1)
		tx.Queue(`WITH u AS (UPDATE fb SET id = 2 WHERE id = $1 RETURNING 1) SELECT EXISTS (SELECT 1 FROM u)`,
			func(r pgx.Row) error { return r.Scan(&check) }, 7)
		// Reads fa, which a member wrote: sent after the run, and sees it.
		return tx.QueryRow(`SELECT v, length(v) FROM fa WHERE id = $1`, 1).Scan(&v, &got)
	})
	if err != nil {
		t.Fatal(err)
	}
	if !fresh || again || check || v != "one" || got != 3 {
		t.Fatalf("results: %v %v %v %q %d", fresh, again, check, v, got)
	}
	// BEGIN, the run of three, the read, COMMIT.
	if n := pgstore.ReadCounts().Sub(before).Statements; n != 4 {
		t.Fatalf("%d statements, want 4", n)
	}

	err = s.Write(ctx, func(stx store.Tx) error {
		tx := pgstore.Internals(stx)
		tx.Queue(`INSERT INTO fa VALUES ($1, $2)`, nil, 2, "two")
		return tx.QueueCAS("fc", "status = $2", "9", "queued")
	})
	if !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("a failed check in a run: %v, want the check's error", err)
	}
	var n int
	if err := pgstore.Pool(s).QueryRow(ctx, `SELECT count(*) FROM fa WHERE id = 2`).Scan(&n); err != nil || n != 0 {
		t.Fatalf("the run's other member committed: %d rows, %v", n, err)
	}
}
