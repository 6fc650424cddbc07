package sqlitestore

import (
	"database/sql"
	"sync/atomic"
	"time"

	sqlite "modernc.org/sqlite"

	"github.com/rtcagent/rtcagent/internal/store"
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
}

// Sub returns c minus old.
func (c Counts) Sub(old Counts) Counts {
	return Counts{Commits: c.Commits - old.Commits, Writes: c.Writes - old.Writes, Pages: c.Pages - old.Pages, Held: c.Held - old.Held,
		Reads: c.Reads - old.Reads}
}

var counts struct{ commits, writes, pages, held, reads atomic.Int64 }

// ReadCounts returns the process's counts so far.
func ReadCounts() Counts {
	return Counts{Commits: counts.commits.Load(), Writes: counts.writes.Load(), Pages: counts.pages.Load(), Held: counts.held.Load(),
		Reads: counts.reads.Load()}
}

func init() {
	store.ExportCount("sqlite", "commits_total", "Transactions committed to SQLite (a group of writes is one).", &counts.commits)
	store.ExportCount("sqlite", "writes_total", "Writes committed to SQLite.", &counts.writes)
	store.ExportCount("sqlite", "read_transactions_total", "Read transactions begun on SQLite.", &counts.reads)
	store.ExportCount("sqlite", "wal_pages_total", "Pages written to the SQLite WAL (frames).", &counts.pages)
	store.ExportCount("sqlite", "writer_held_nanoseconds_total",
		"Time the SQLite writer held the database for committed groups (BEGIN to the end of COMMIT).", &counts.held)
}

// countCommit adds a committed group of writes, held the time the writer held
// the database for it, and the pages the writer's connection wrote since the
// previous call (SQLite's cache-write counter, which it reads and resets).
func countCommit(c *sql.Conn, writes int, held time.Duration) {
	counts.commits.Add(1)
	counts.held.Add(int64(held))
	counts.writes.Add(int64(writes))
	_ = c.Raw(func(dc any) error {
		if st, ok := dc.(sqlite.DBStatus); ok {
			if n, _, err := st.Status(sqlite.DBStatusCacheWrite, true); err == nil {
				counts.pages.Add(int64(n))
			}
		}
		return nil
	})
}
