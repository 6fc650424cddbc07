package walvfs_test

import (
	"bytes"
	"crypto/rand"
	"database/sql"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"testing"

	_ "modernc.org/sqlite"

	"github.com/rtcagent/rtcagent/internal/store/sqlitestore/walvfs"
)

// open opens path in WAL mode on one connection, through the VFS when gather.
func open(t *testing.T, path string, gather bool, pragmas ...string) *sql.DB {
	t.Helper()
	if err := walvfs.Register(); err != nil {
		t.Fatal(err)
	}
	q := url.Values{}
	for _, p := range append([]string{"busy_timeout(10000)", "journal_mode(WAL)", "synchronous(NORMAL)"}, pragmas...) {
		q.Add("_pragma", p)
	}
	if gather {
		q.Set("vfs", walvfs.Name)
	}
	db, err := sql.Open("sqlite", "file:"+path+"?"+q.Encode())
	if err != nil {
		t.Fatal(err)
	}
	db.SetMaxOpenConns(1)
	t.Cleanup(func() { db.Close() })
	return db
}

func exec(t *testing.T, db *sql.DB, query string, args ...any) {
	t.Helper()
	if _, err := db.Exec(query, args...); err != nil {
		t.Fatalf("%s: %v", query, err)
	}
}

func count(t *testing.T, db *sql.DB) (n, sum int64) {
	t.Helper()
	if err := db.QueryRow(`SELECT count(*), coalesce(sum(v), 0) FROM t`).Scan(&n, &sum); err != nil {
		t.Fatal(err)
	}
	return n, sum
}

func integrity(t *testing.T, db *sql.DB) {
	t.Helper()
	var ok string
	if err := db.QueryRow(`PRAGMA integrity_check`).Scan(&ok); err != nil || ok != "ok" {
		t.Fatalf("integrity_check: %q %v", ok, err)
	}
}

const schema = `CREATE TABLE t (id INTEGER PRIMARY KEY, k TEXT NOT NULL, v INTEGER NOT NULL, body TEXT NOT NULL);
CREATE UNIQUE INDEX t_k ON t(k); CREATE INDEX t_v ON t(v); CREATE INDEX t_body ON t(substr(body, 1, 8))`

// A commit that changes a table and three indexes is one write, and a
// connection of the unix VFS reads it as soon as it is committed.
func TestCommitIsOneWrite(t *testing.T) {
	path := filepath.Join(t.TempDir(), "db")
	w := open(t, path, true, "wal_autocheckpoint(0)")
	exec(t, w, schema)
	r := open(t, path, false, "query_only(1)")
	for i := range 50 {
		before := walvfs.Writes()
		exec(t, w, `INSERT INTO t (k, v, body) VALUES (?, ?, ?)`, fmt.Sprint("k", i), i, fmt.Sprint("body", i))
		if d := walvfs.Writes() - before; d != 1 {
			t.Fatalf("commit %d: %d writes, want 1", i, d)
		}
		if n, _ := count(t, r); n != int64(i+1) {
			t.Fatalf("commit %d: reader sees %d rows", i, n)
		}
	}
}

// What a commit wrote is in the files once it returns: a copy of the database
// and its WAL taken then, without closing the writer, opens with every row.
func TestCommittedIsInTheFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "db")
	w := open(t, path, true, "wal_autocheckpoint(0)")
	exec(t, w, schema)
	for i := range 20 {
		exec(t, w, `INSERT INTO t (k, v, body) VALUES (?, ?, ?)`, fmt.Sprint("k", i), i, "x")
		cp := filepath.Join(dir, fmt.Sprint("copy", i))
		for _, suffix := range []string{"", "-wal"} {
			copyFile(t, path+suffix, cp+suffix)
		}
		c := open(t, cp, false)
		if n, _ := count(t, c); n != int64(i+1) {
			t.Fatalf("copy after commit %d has %d rows", i, n)
		}
		c.Close()
	}
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	in, err := os.Open(from)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	out, err := os.Create(to)
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	if _, err := io.Copy(out, in); err != nil {
		t.Fatal(err)
	}
}

// Transactions larger than the page cache (their frames written before the
// commit, some rewritten in place), runs past the gathering limit, rollbacks,
// and checkpoints that restart and truncate the WAL under the writer leave
// the database whole, read the same through either VFS.
func TestSpillsRollbacksAndCheckpoints(t *testing.T) {
	path := filepath.Join(t.TempDir(), "db")
	w := open(t, path, true, "wal_autocheckpoint(0)", "cache_size(20)", "journal_size_limit(65536)")
	exec(t, w, schema)
	ck := open(t, path, false)
	r := open(t, path, false, "query_only(1)")
	body := func(n int) string {
		b := make([]byte, n)
		rand.Read(b)
		return fmt.Sprintf("%x", b)
	}
	var rows, sum int64
	insert := func(tx *sql.Tx, k string, v int64, size int) {
		if _, err := tx.Exec(`INSERT INTO t (k, v, body) VALUES (?, ?, ?)`, k, v, body(size)); err != nil {
			t.Fatal(err)
		}
	}
	for round := range 6 {
		// A large transaction: 1,500 rows of 1 KiB, about 3 MiB of frames.
		tx, err := w.Begin()
		if err != nil {
			t.Fatal(err)
		}
		for i := range 1500 {
			insert(tx, fmt.Sprintf("big-%d-%d", round, i), int64(i), 512)
		}
		if round%2 == 1 {
			if err := tx.Rollback(); err != nil {
				t.Fatal(err)
			}
		} else {
			if err := tx.Commit(); err != nil {
				t.Fatal(err)
			}
			rows, sum = rows+1500, sum+1499*1500/2
		}
		// Small commits, some of them updating rows of the large one.
		for i := range 40 {
			tx, err := w.Begin()
			if err != nil {
				t.Fatal(err)
			}
			insert(tx, fmt.Sprintf("small-%d-%d", round, i), 1, 16)
			if _, err := tx.Exec(`UPDATE t SET body = ? WHERE id = (SELECT max(id) FROM t)`, body(64)); err != nil {
				t.Fatal(err)
			}
			if err := tx.Commit(); err != nil {
				t.Fatal(err)
			}
			rows, sum = rows+1, sum+1
			if i%10 == 0 {
				mode := []string{"PASSIVE", "RESTART", "TRUNCATE"}[(round+i/10)%3]
				exec(t, ck, `PRAGMA wal_checkpoint(`+mode+`)`)
			}
		}
		if n, s := count(t, r); n != rows || s != sum {
			t.Fatalf("round %d: reader sees %d rows summing %d, want %d and %d", round, n, s, rows, sum)
		}
		integrity(t, r)
	}
	if n, s := count(t, w); n != rows || s != sum {
		t.Fatalf("writer sees %d rows summing %d, want %d and %d", n, s, rows, sum)
	}
	w.Close()
	again := open(t, path, false)
	if n, s := count(t, again); n != rows || s != sum {
		t.Fatalf("reopened: %d rows summing %d, want %d and %d", n, s, rows, sum)
	}
	integrity(t, again)
}

// Commits of 100 to 220 KiB cross the 128 KiB a write holds, with the commit
// frame's header and its page on either side of the cut or not: a
// connection of the unix VFS reads each as soon as it is committed.
func TestCommitsAcrossTheRunLimit(t *testing.T) {
	path := filepath.Join(t.TempDir(), "db")
	w := open(t, path, true, "wal_autocheckpoint(0)")
	exec(t, w, `CREATE TABLE b (id INTEGER PRIMARY KEY, b BLOB)`)
	r := open(t, path, false, "query_only(1)")
	for i := range 120 {
		blob := make([]byte, 100<<10+i*1024)
		rand.Read(blob)
		exec(t, w, `INSERT INTO b (id, b) VALUES (?, ?)`, i, blob)
		var got []byte
		if err := r.QueryRow(`SELECT b FROM b WHERE id = ?`, i).Scan(&got); err != nil || !bytes.Equal(got, blob) {
			t.Fatalf("commit %d: reader: %v, same blob %v", i, err, bytes.Equal(got, blob))
		}
	}
}

// The same over a WAL that started over (older frames still in the file),
// each commit checkpointed at once: the database file ends up whole.
func TestLargeCommitsOverARestartedWAL(t *testing.T) {
	path := filepath.Join(t.TempDir(), "db")
	w := open(t, path, true, "wal_autocheckpoint(0)")
	exec(t, w, `CREATE TABLE b (id INTEGER PRIMARY KEY, b BLOB)`)
	ck := open(t, path, false)
	exec(t, w, `CREATE TABLE junk (b BLOB)`)
	exec(t, w, `WITH RECURSIVE s(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM s WHERE x < 2000) INSERT INTO junk SELECT randomblob(3000) FROM s`)
	exec(t, w, `DELETE FROM junk`)
	exec(t, ck, `PRAGMA wal_checkpoint(RESTART)`)
	r := open(t, path, false, "query_only(1)")
	blobs := map[int][]byte{}
	for i := range 40 {
		blob := make([]byte, 100<<10+i*1024)
		rand.Read(blob)
		blobs[i] = blob
		exec(t, w, `INSERT INTO b (id, b) VALUES (?, ?)`, i, blob)
		var got []byte
		if err := r.QueryRow(`SELECT b FROM b WHERE id = ?`, i).Scan(&got); err != nil || !bytes.Equal(got, blob) {
			t.Fatalf("commit %d: reader: %v, same blob %v", i, err, bytes.Equal(got, blob))
		}
		exec(t, ck, `PRAGMA wal_checkpoint(PASSIVE)`)
	}
	w.Close()
	exec(t, ck, `PRAGMA wal_checkpoint(TRUNCATE)`)
	integrity(t, ck)
	for i, blob := range blobs {
		var got []byte
		if err := ck.QueryRow(`SELECT b FROM b WHERE id = ?`, i).Scan(&got); err != nil || !bytes.Equal(got, blob) {
			t.Errorf("after close, row %d: %v, same blob %v", i, err, bytes.Equal(got, blob))
		}
	}
}

// A transaction that spills its cache and then changes a page it spilled
// ends by rewriting the checksums of its frames in place, the commit frame's
// header last: a copy of the files taken right after the commit holds it.
func TestRewrittenChecksumsInTheFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "db")
	w := open(t, path, true, "wal_autocheckpoint(0)", "cache_size(10)")
	exec(t, w, `CREATE TABLE b (id INTEGER PRIMARY KEY, v INTEGER, b BLOB)`)
	exec(t, w, `INSERT INTO b (id, v, b) VALUES (0, 0, zeroblob(100))`)
	for i := 1; i <= 5; i++ {
		tx, err := w.Begin()
		if err != nil {
			t.Fatal(err)
		}
		for _, q := range []string{`UPDATE b SET v = ? WHERE id = 0`,
			`WITH RECURSIVE s(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM s WHERE x < 200) INSERT INTO b (id, v, b) SELECT x + ? * 1000, 0, randomblob(3000) FROM s`,
			`UPDATE b SET v = v + 100 WHERE id = 0 AND ? > 0`} {
			if _, err := tx.Exec(q, i); err != nil {
				t.Fatal(err)
			}
		}
		if err := tx.Commit(); err != nil {
			t.Fatal(err)
		}
		cp := filepath.Join(dir, fmt.Sprint("copy", i))
		for _, suffix := range []string{"", "-wal"} {
			copyFile(t, path+suffix, cp+suffix)
		}
		c := open(t, cp, false)
		var v int
		if err := c.QueryRow(`SELECT v FROM b WHERE id = 0`).Scan(&v); err != nil || v != i+100 {
			t.Errorf("copy after commit %d: v = %d (%v), want %d", i, v, err, i+100)
		}
		c.Close()
	}
}

// With 64 KiB pages every frame is past half a write's room: commits of one
// to nine pages, each read at once by a connection of the unix VFS.
func TestLargePages(t *testing.T) {
	path := filepath.Join(t.TempDir(), "db")
	// A file in WAL mode keeps its page size: it is set in rollback mode.
	pre := open(t, path, false)
	exec(t, pre, `PRAGMA journal_mode = DELETE`)
	exec(t, pre, `PRAGMA page_size = 65536`)
	exec(t, pre, `VACUUM`)
	pre.Close()
	w := open(t, path, true, "wal_autocheckpoint(0)")
	exec(t, w, schema)
	var size int
	if err := w.QueryRow(`PRAGMA page_size`).Scan(&size); err != nil || size != 65536 {
		t.Fatalf("page size %d (%v)", size, err)
	}
	r := open(t, path, false, "query_only(1)")
	for i := range 20 {
		exec(t, w, `INSERT INTO t (k, v, body) VALUES (?, ?, hex(randomblob(?)))`, fmt.Sprint("k", i), i, 15000*i+1)
		var a, b string
		if err := w.QueryRow(`SELECT body FROM t WHERE v = ?`, i).Scan(&a); err != nil {
			t.Fatal(err)
		}
		if err := r.QueryRow(`SELECT body FROM t WHERE v = ?`, i).Scan(&b); err != nil || a != b {
			t.Fatalf("commit %d: reader: %v, same body %v", i, err, a == b)
		}
	}
}
