package pgstore

import (
	"strings"
	"testing"
)

func runSizes(sqls ...string) []int {
	ds := make([]deferred, len(sqls))
	for i, q := range sqls {
		ds[i] = deferred{sql: q}
	}
	var out []int
	for _, r := range runsOf(ds) {
		out = append(out, len(r))
	}
	return out
}

// Statements join a run while they touch different tables; a lock, a write of
// a table another member touches, BEGIN or COMMIT ends it.
func TestRunsOf(t *testing.T) {
	for _, c := range []struct {
		sqls []string
		want []int
	}{
		{[]string{beginWrite, `INSERT INTO a VALUES ($1)`, `INSERT INTO b VALUES ($1)`, `COMMIT`}, []int{1, 2, 1}},
		// The second reads what the first writes: it must see the write.
		{[]string{`INSERT INTO inbox VALUES ($1)`, `SELECT EXISTS (SELECT 1 FROM inbox WHERE id = $1)`}, []int{1, 1}},
		{[]string{`DELETE FROM inbox WHERE id = $1`, `INSERT INTO inbox VALUES ($1)`}, []int{1, 1}},
		// Reads of one table share a run; a read after a lock does not.
		{[]string{`SELECT 1 FROM a`, `SELECT 2 FROM a JOIN b ON true`}, []int{2}},
		{[]string{`SELECT 1 FROM us WHERE id = $1 FOR UPDATE`, `SELECT data FROM s WHERE id = $1`}, []int{1, 1}},
		{[]string{`SELECT data FROM s WHERE id = $1`, `SELECT 1 FROM us WHERE id = $1 FOR UPDATE`, `SELECT 1 FROM t`}, []int{2, 1}},
		// A CTE's name is not a table; DO UPDATE and FOR UPDATE name none.
		{[]string{`WITH u AS (UPDATE turns SET a = 1 RETURNING 1) SELECT EXISTS (SELECT 1 FROM u)`,
			`WITH u AS (UPDATE rtcs SET a = 1 RETURNING 1) SELECT EXISTS (SELECT 1 FROM u)`,
			`INSERT INTO audit VALUES (1) ON CONFLICT (id) DO UPDATE SET a = 2`}, []int{3}},
		{[]string{`INSERT INTO a VALUES (1)`, `WITH RECURSIVE r AS (SELECT 1) SELECT 1 FROM r`}, []int{1, 1}},
		{[]string{`INSERT INTO a VALUES (1)`, `SELECT 1; SELECT 2`}, []int{1, 1}},
		{[]string{`INSERT INTO a VALUES (1)`, `WITH`, `WITH x`, `WITH x AS`, `WITH x AS (SELECT 1`}, []int{1, 1, 1, 1, 1}},
	} {
		if got := runSizes(c.sqls...); !equalInts(got, c.want) {
			t.Errorf("%q: runs %v, want %v", c.sqls, got, c.want)
		}
	}
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// A member's CTEs are renamed and its parameters renumbered; string literals
// and other identifiers are left as written.
func TestRename(t *testing.T) {
	q := `WITH u AS (UPDATE t SET x = $2 WHERE id = $1 RETURNING 1) SELECT CASE WHEN EXISTS (SELECT 1 FROM u) THEN true ELSE rtcagent_fail('u $1', $1) END -- u $3
`
	got := rename(q, shapeOf(q).names, 3, 10)
	want := `WITH u_3 AS (UPDATE t SET x = $12 WHERE id = $11 RETURNING 1) SELECT CASE WHEN EXISTS (SELECT 1 FROM u_3) THEN true ELSE rtcagent_fail('u $1', $11) END -- u $3
`
	if got != want {
		t.Fatalf("renamed:\n%s\nwant:\n%s", got, want)
	}
}

// A write becomes a CTE of the fused statement, a SELECT a part of its row.
func TestFusedSQL(t *testing.T) {
	f := fuse([]deferred{{sql: `INSERT INTO fa VALUES ($1)`, args: []any{1}}, {sql: "SELECT $1 -- a note", args: []any{2}}})
	if !strings.HasPrefix(f.sql, "WITH w_0 AS (INSERT INTO fa VALUES ($1))") || !strings.Contains(f.sql, "FROM (SELECT $2) x") ||
		f.parts[0] || !f.parts[1] {
		t.Fatalf("fused: %s %v", f.sql, f.parts)
	}
}
