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

// defaultWALSize is the size the WAL file is cut back to when it starts over;
// it starts over once it is longer than half of it.
const defaultWALSize = 64 << 20

// A restart waits for readers still on the old WAL by polling, restartTries
// times, restartPoll apart, which bounds how long it can hold up the writer. The
// checkpointer's busy timeout is zero: SQLite's busy handler would sleep a
// millisecond or more at a time, and a read lasts well under one.
const (
	restartTries = 20
	restartPoll  = 100 * time.Microsecond
)

// checkpointer copies committed pages from the WAL into the database file off the
// commit path. SQLite's automatic checkpoint runs inside the commit that crosses
// its threshold and makes that commit wait for the file syncs (the slowest
// percent of round trips); here a passive checkpoint runs on its own connection
// and never blocks the writer or the readers.
//
// The WAL starts over from its beginning only when a commit finds every frame
// copied. Under a steady write load a passive checkpoint never catches up with
// the last commit, so the WAL would grow without end (every frame appended to the
// file, then written out by the kernel). When the WAL is longer than
// restartFrames, the checkpointer therefore takes the writer's turn for a moment
// (hold): it copies the frames committed since its passive pass and waits for the
// readers of the old frames (a RESTART checkpoint), and the next commit writes
// from the WAL's beginning again, over the same file blocks.
type checkpointer struct {
	hold          func(func()) // runs its argument while no write group runs
	restartFrames int
	db            *sql.DB
	stop          chan struct{}
	done          chan struct{}
}

// startCheckpointer starts the checkpointer of a WAL that is cut back to walSize
// bytes when it starts over.
func startCheckpointer(ctx context.Context, dsn string, hold func(func()), walSize int64) (*checkpointer, error) {
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, fmt.Errorf("open sqlite checkpointer: %w", err)
	}
	db.SetMaxOpenConns(1)
	var pageSize int64
	if err := db.QueryRowContext(ctx, `PRAGMA page_size`).Scan(&pageSize); err != nil {
		db.Close()
		return nil, fmt.Errorf("open sqlite checkpointer: %w", err)
	}
	c := &checkpointer{hold: hold, restartFrames: int(walSize / 2 / pageSize), db: db, stop: make(chan struct{}), done: make(chan struct{})}
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
		if frames, _, err := c.checkpoint("PASSIVE"); err == nil && frames > c.restartFrames {
			// A second pass copies what was committed during the first, so the
			// restart, which holds up the writer, finds little left to copy.
			_, _, _ = c.checkpoint("PASSIVE")
			c.hold(c.restart)
		}
	}
}

// restart copies the rest of the WAL and waits for the readers of its frames; a
// reader that starts meanwhile reads from the database file and is not waited
// for. When readers stay, it gives up (the next tick tries again).
func (c *checkpointer) restart() {
	for range restartTries {
		if _, busy, err := c.checkpoint("RESTART"); err != nil || !busy {
			return
		}
		time.Sleep(restartPoll)
	}
}

// checkpoint runs a checkpoint of the given mode. It returns the WAL's length in
// frames and whether the checkpoint could not finish for readers or a writer.
func (c *checkpointer) checkpoint(mode string) (frames int, busy bool, err error) {
	var b, copied int
	err = c.db.QueryRow(`PRAGMA wal_checkpoint(`+mode+`)`).Scan(&b, &frames, &copied)
	return frames, b != 0, err
}

func (c *checkpointer) close() {
	close(c.stop)
	<-c.done
	c.db.Close()
}
