package sqlitestore

import (
	"database/sql"
	"sync/atomic"
	"time"

	sqlite "modernc.org/sqlite"

	"github.com/rtcagent/rtcagent/internal/store"
	"github.com/rtcagent/rtcagent/internal/store/sqlitestore/walvfs"
)

// Counts are the writes this process committed to SQLite, over every Store it
// opened: what one request or round trip costs the database file is the
// difference of two Counts divided by the requests in between.
type Counts struct {
	Commits int64 // transactions committed (a group of writes is one)
	Writes  int64 // Write calls committed
	Pages   int64 // pages written to the WAL by those commits (WAL frames)
	// Held is how long the writer held the database for those commits, in
	// nanoseconds: from BEGIN to the end of COMMIT, the writes run inside.
	Held  int64
	Reads int64 // read transactions begun
	// Prepared are writes that took effect as their prepared run left them
	// (prepared.go); Rerun, writes whose prepared run did not hold and
	// whose function ran again under the writer. A write without a
	// prepared run (it needed the database) is neither.
	Prepared, Rerun int64
	// WALWrites are the write calls the process's WAL files got (walvfs
	// gathers a commit's frames into one). ReadCounts only: a Store's
	// Counts leave it zero.
	WALWrites int64
}

// Sub returns c minus old.
func (c Counts) Sub(old Counts) Counts {
	return Counts{Commits: c.Commits - old.Commits, Writes: c.Writes - old.Writes, Pages: c.Pages - old.Pages, Held: c.Held - old.Held,
		Reads: c.Reads - old.Reads, WALWrites: c.WALWrites - old.WALWrites, Prepared: c.Prepared - old.Prepared, Rerun: c.Rerun - old.Rerun}
}

// counters are Counts as they are kept: the process's (counts), and each
// store's own (Store.Counts), which no other store's work reaches.
type counters struct{ commits, writes, pages, held, reads, prepared, rerun atomic.Int64 }

func (c *counters) read() Counts {
	return Counts{Commits: c.commits.Load(), Writes: c.writes.Load(), Pages: c.pages.Load(), Held: c.held.Load(), Reads: c.reads.Load(),
		Prepared: c.prepared.Load(), Rerun: c.rerun.Load()}
}

var counts counters

// ReadCounts returns the process's counts so far.
func ReadCounts() Counts {
	c := counts.read()
	c.WALWrites = walvfs.Writes()
	return c
}

// Counts returns this store's counts so far: those of ReadCounts that its
// own reads and commits made.
func (s *Store) Counts() Counts { return s.counts.read() }

// countPrepared adds a write with a prepared run: it took effect as the run
// left it (held), or ran again under the writer.
func (s *Store) countPrepared(held bool) {
	for _, c := range []*counters{&counts, &s.counts} {
		if held {
			c.prepared.Add(1)
		} else {
			c.rerun.Add(1)
		}
	}
}

// countRead adds a read transaction begun.
func (s *Store) countRead() {
	counts.reads.Add(1)
	s.counts.reads.Add(1)
}

// pagesWritten returns the pages c wrote since it was last asked, and starts
// counting again (SQLite's cache-write counter, read and reset).
func pagesWritten(c *sql.Conn) int64 {
	pages := int64(0)
	_ = c.Raw(func(dc any) error {
		if st, ok := dc.(sqlite.DBStatus); ok {
			if n, _, err := st.Status(sqlite.DBStatusCacheWrite, true); err == nil {
				pages = int64(n)
			}
		}
		return nil
	})
	return pages
}

func init() {
	store.ExportCount("sqlite", "commits_total", "Transactions committed to SQLite (a group of writes is one).", &counts.commits)
	store.ExportCount("sqlite", "writes_total", "Writes committed to SQLite.", &counts.writes)
	store.ExportCount("sqlite", "read_transactions_total", "Read transactions begun on SQLite.", &counts.reads)
	store.ExportCount("sqlite", "prepared_writes_total", "Writes that took effect as their run off the writer left them.", &counts.prepared)
	store.ExportCount("sqlite", "rerun_writes_total", "Writes whose run off the writer no longer held, run again under the writer.", &counts.rerun)
	store.ExportCount("sqlite", "wal_pages_total", "Pages written to the SQLite WAL (frames).", &counts.pages)
	store.ExportCount("sqlite", "writer_held_nanoseconds_total",
		"Time the SQLite writer held the database for committed groups (BEGIN to the end of COMMIT).", &counts.held)
}

// countCommit adds a committed group of writes, held the time the writer held
// the database for it, and the pages the writer's connection wrote since the
// previous call (pagesWritten).
func (s *Store) countCommit(c *sql.Conn, writes int, held time.Duration) {
	pages := pagesWritten(c)
	for _, c := range []*counters{&counts, &s.counts} {
		c.commits.Add(1)
		c.held.Add(int64(held))
		c.writes.Add(int64(writes))
		c.pages.Add(pages)
	}
}
