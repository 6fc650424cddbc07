package sqlitestore

import (
	"context"
	"database/sql"
	"fmt"
	"time"
)

// checkpointEvery is how often committed pages move from the WAL into the
// database file.
const checkpointEvery = 500 * time.Millisecond

// checkpointer copies committed pages from the WAL into the database file off the
// commit path. SQLite's automatic checkpoint runs inside the commit that crosses
// its threshold and makes that commit wait for the file syncs (the slowest
// percent of round trips); here a passive checkpoint runs on its own connection
// and never blocks the writer or the readers. The writer restarts the WAL from
// its beginning once everything in it was copied.
type checkpointer struct {
	db   *sql.DB
	stop chan struct{}
	done chan struct{}
}

func startCheckpointer(ctx context.Context, dsn string) (*checkpointer, error) {
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, fmt.Errorf("open sqlite checkpointer: %w", err)
	}
	db.SetMaxOpenConns(1)
	if err := db.PingContext(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("open sqlite checkpointer: %w", err)
	}
	c := &checkpointer{db: db, stop: make(chan struct{}), done: make(chan struct{})}
	go c.run()
	return c, nil
}

func (c *checkpointer) run() {
	defer close(c.done)
	t := time.NewTicker(checkpointEvery)
	defer t.Stop()
	for {
		select {
		case <-c.stop:
			return
		case <-t.C:
		}
		// Errors are transient (the next tick tries again); the WAL only grows
		// meanwhile, and nothing committed depends on the checkpoint.
		_, _ = c.db.Exec(`PRAGMA wal_checkpoint(PASSIVE)`)
	}
}

func (c *checkpointer) close() {
	close(c.stop)
	<-c.done
	c.db.Close()
}
