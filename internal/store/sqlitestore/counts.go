package sqlitestore

import (
	"database/sql"
	"sync/atomic"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promauto"
	sqlite "modernc.org/sqlite"
)

// Counts are the writes this process committed to SQLite, over every Store it
// opened: what one request or round trip costs the database file is the
// difference of two Counts divided by the requests in between.
type Counts struct {
	Commits int64 // transactions committed (a group of writes is one)
	Writes  int64 // Write calls committed
	Pages   int64 // pages written to the WAL by those commits (WAL frames)
}

// Sub returns c minus old.
func (c Counts) Sub(old Counts) Counts {
	return Counts{Commits: c.Commits - old.Commits, Writes: c.Writes - old.Writes, Pages: c.Pages - old.Pages}
}

var counts struct{ commits, writes, pages atomic.Int64 }

// ReadCounts returns the process's counts so far.
func ReadCounts() Counts {
	return Counts{Commits: counts.commits.Load(), Writes: counts.writes.Load(), Pages: counts.pages.Load()}
}

func init() {
	c := func(name, help string, v *atomic.Int64) {
		promauto.NewCounterFunc(prometheus.CounterOpts{Namespace: "rtcagent", Subsystem: "sqlite", Name: name, Help: help},
			func() float64 { return float64(v.Load()) })
	}
	c("commits_total", "Transactions committed to SQLite (a group of writes is one).", &counts.commits)
	c("writes_total", "Writes committed to SQLite.", &counts.writes)
	c("wal_pages_total", "Pages written to the SQLite WAL (frames).", &counts.pages)
}

// countCommit adds a committed group of writes and the pages the writer's
// connection wrote since the previous call (SQLite's cache-write counter, which
// it reads and resets).
func countCommit(c *sql.Conn, writes int) {
	counts.commits.Add(1)
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
