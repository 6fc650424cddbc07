package sqlitestore

import (
	"context"
	"database/sql"
	"embed"
	"errors"
	"fmt"
	"net/url"
	"os"
	"sync"
	"sync/atomic"
	"time"

	_ "modernc.org/sqlite" // registers the "sqlite" driver

	"github.com/rtcagent/rtcagent/internal/store"
	"github.com/rtcagent/rtcagent/internal/store/sqlitestore/walvfs"
)

//go:embed migrations/*.sql
var migrations embed.FS

// Store is the SQLite implementation of store.Store.
type Store struct {
	w     *sql.DB // one connection: all writes
	r     *sql.DB // read-only connections
	wc    *conn   // the writer's connection, used by the group's leader
	rc    chan *conn
	ck    *checkpointer
	group group
	mu    sync.Mutex // guards hook and committed
	hook  func(store.Commit)
	// committed are the stream positions as of the last commit whose hook has
	// run (Committed).
	committed knownStreams
	now       func() time.Time
	// epoch is the initial epoch of every user stream: fixed per database, so a
	// user with no updates yet reads the same epoch before and after the first one.
	epoch string
	known knownStreams // the writer's committed stream positions (the group's leader's)
	// inboxID is the id of the newest inbox item (the group's leader's):
	// items are keyed by session, and take their ids from it in the order
	// they are queued. A write that rolls back leaves a gap.
	inboxID atomic.Int64
	rows    knownRows   // the writer's committed sessions, turns and RTCs (the group's leader's)
	leases  leaseTable  // the leases of this process's workers (leases.go)
	resumes resumeTable // the sessions' resume items (resumes.go)
	inbox   knownInbox  // the writer's committed inbox items (the group's leader's)
	seqs    knownSeqs   // the writer's committed highest seqs of sessions (the group's leader's)
	open    knownOpen   // the writer's committed open calls of turns (the group's leader's)
	// streaming and msgSeqs are the writer's committed streaming messages of
	// sessions and seqs of messages (the group's leader's).
	streaming knownStreaming
	msgSeqs   knownMessageSeqs
	queued    knownQueued // the writer's committed queued turns of sessions
	counts    counters    // this store's Counts
	path      string
	// writer is the lock file that makes this store its database's one
	// writer process (takeWriter), nil until its first write (or Open, with
	// Options.Writer); writing once the writer also read what it keeps.
	writer  *os.File
	writing bool
	// mem guards the writer's memory above (known, rows, inbox, seqs, open)
	// against prepared runs (prepared.go), which read it off the writer
	// once ready (it was loaded, takeWriter); the writer changes it under
	// the lock and reads it without.
	mem   sync.RWMutex
	ready atomic.Bool
}

// Options tune a Store; the zero value is fine.
type Options struct {
	Now      func() time.Time // clock, for tests; default time.Now
	ReadPool int              // read connections; default 4
	// WALSize is the size in bytes the WAL file is cut back to when it starts
	// over, which it does once it is longer than half of it; default 64 MiB.
	WALSize int64
	// Writer takes the writer's lock (takeWriter) when the store opens, so a
	// second process on the file fails at once; without it the lock is taken
	// at the first write (a tool that only reads never takes it).
	Writer bool
}

// Open opens (creating if needed) the database file at path and applies migrations.
func Open(ctx context.Context, path string, opt Options) (*Store, error) {
	if opt.Now == nil {
		opt.Now = time.Now
	}
	if opt.ReadPool <= 0 {
		opt.ReadPool = 4
	}
	if opt.WALSize <= 0 {
		opt.WALSize = defaultWALSize
	}
	// temp_store(MEMORY) keeps the statement journals of group commit's
	// savepoints in memory instead of temporary files.
	dsn := func(extra ...string) string {
		q := url.Values{}
		for _, p := range append([]string{"busy_timeout(10000)", "journal_mode(WAL)", "synchronous(NORMAL)", "foreign_keys(1)", "temp_store(MEMORY)"}, extra...) {
			q.Add("_pragma", p)
		}
		return "file:" + path + "?" + q.Encode()
	}
	// The writer never checkpoints (see checkpoint.go); the WAL file is cut back
	// to WALSize when it starts over. Its WAL writes are gathered, a commit's
	// frames in one write (walvfs), where SQLite has the unix VFS.
	vfs := "&vfs=" + walvfs.Name
	switch err := walvfs.Register(); {
	case errors.Is(err, walvfs.ErrNoUnixVFS):
		vfs = ""
	case err != nil:
		return nil, err
	}
	w, err := sql.Open("sqlite", dsn("wal_autocheckpoint(0)", fmt.Sprintf("journal_size_limit(%d)", opt.WALSize))+vfs)
	if err != nil {
		return nil, fmt.Errorf("open sqlite %s: %w", path, err)
	}
	w.SetMaxOpenConns(1)
	w.SetConnMaxIdleTime(0)
	s := &Store{w: w, now: opt.Now, hook: func(store.Commit) {}, known: knownStreams{}, committed: knownStreams{}, inbox: knownInbox{}, seqs: knownSeqs{}, open: knownOpen{},
		streaming: knownStreaming{}, msgSeqs: knownMessageSeqs{}, queued: knownQueued{}, path: path,
		leases: newLeaseTable(), resumes: newResumeTable()}
	s.group.init(s)
	early := func(err error) (*Store, error) {
		if s.writer != nil {
			s.writer.Close()
		}
		w.Close()
		return nil, err
	}
	if opt.Writer {
		// Before the migrations: a second server never changes the schema
		// under the one that writes the file.
		if err := s.lockWriter(); err != nil {
			return early(err)
		}
	}
	if err := s.migrate(ctx); err != nil {
		return early(err)
	}
	if err := s.loadEpoch(ctx); err != nil {
		return early(err)
	}
	r, err := sql.Open("sqlite", dsn("query_only(1)"))
	if err != nil {
		return early(fmt.Errorf("open sqlite reader %s: %w", path, err))
	}
	r.SetMaxOpenConns(opt.ReadPool)
	s.r = r
	if s.wc, err = newConn(ctx, w); err != nil {
		if s.writer != nil {
			s.writer.Close()
		}
		s.closeDBs()
		return nil, err
	}
	s.rc = make(chan *conn, opt.ReadPool)
	for range opt.ReadPool {
		c, err := newConn(ctx, r)
		if err != nil {
			s.Close()
			return nil, err
		}
		s.rc <- c
	}
	if s.ck, err = startCheckpointer(ctx, dsn("busy_timeout(0)"), s.group.hold, opt.WALSize); err != nil {
		s.Close()
		return nil, err
	}
	if opt.Writer {
		if err := s.takeWriter(ctx); err != nil {
			s.Close()
			return nil, err
		}
	}
	// What opening wrote (the migrations) is no commit's: the first one
	// counts its own pages only.
	pagesWritten(s.wc.c)
	return s, nil
}

func (s *Store) migrate(ctx context.Context) error { return migrateTo(ctx, s.w, 0) }

// migrateTo applies the migrations not yet applied to db, up to version upTo
// (all of them when it is 0), each in its own transaction.
func migrateTo(ctx context.Context, db *sql.DB, upTo int) error {
	if _, err := db.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY)`); err != nil {
		return fmt.Errorf("create schema_migrations: %w", err)
	}
	ms, err := store.Migrations(migrations)
	if err != nil {
		return err
	}
	for _, m := range ms {
		name, v := m.Name, m.Version
		if upTo > 0 && v > upTo {
			break
		}
		var n int
		if err := db.QueryRowContext(ctx, `SELECT count(*) FROM schema_migrations WHERE version = ?`, v).Scan(&n); err != nil {
			return fmt.Errorf("read schema_migrations: %w", err)
		}
		if n > 0 {
			continue
		}
		body, err := migrations.ReadFile(name)
		if err != nil {
			return err
		}
		tx, err := db.BeginTx(ctx, nil)
		if err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, string(body)); err != nil {
			tx.Rollback()
			return fmt.Errorf("apply migration %s: %w", name, err)
		}
		if _, err := tx.ExecContext(ctx, store.SQLMigrationApplied, v); err != nil {
			tx.Rollback()
			return err
		}
		if err := tx.Commit(); err != nil {
			return fmt.Errorf("commit migration %s: %w", name, err)
		}
	}
	return nil
}

func (s *Store) loadEpoch(ctx context.Context) error {
	if _, err := s.w.ExecContext(ctx, store.SQLEpochInit, store.NewEpoch()); err != nil {
		return fmt.Errorf("init epoch: %w", err)
	}
	if err := s.w.QueryRowContext(ctx, store.SQLEpochGet).Scan(&s.epoch); err != nil {
		return fmt.Errorf("read epoch: %w", err)
	}
	return nil
}

// SetCommitHook implements store.Store.
func (s *Store) SetCommitHook(h func(store.Commit)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.hook = h
}

// Write implements store.Store. Concurrent calls are committed in groups (see
// group.go): fn runs in a savepoint of a transaction it may share with other
// calls, and returns once that transaction committed or fn's work was rolled back.
func (s *Store) Write(ctx context.Context, fn func(tx store.Tx) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	return s.group.write(ctx, fn)
}

// Read implements store.Store: a snapshot on one of the read connections.
func (s *Store) Read(ctx context.Context, fn func(tx store.Tx) error) error {
	var c *conn
	select {
	case c = <-s.rc:
	case <-ctx.Done():
		return ctx.Err()
	}
	defer func() { s.rc <- c }()
	s.countRead()
	qctx := context.WithoutCancel(ctx)
	if err := c.begin(qctx, false); err != nil {
		return fmt.Errorf("begin read: %w", err)
	}
	defer c.end(false)
	t := &tx{q: counted{c}, leaseTab: &s.leases, resumeTab: &s.resumes}
	t.Shared = store.NewShared(driver{t}, store.TxState{Ctx: qctx, At: s.now().UTC(), Epoch: s.epoch})
	return fn(t)
}

// Committed implements store.Positions.
func (s *Store) Committed(userID string) (store.StreamPos, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	st, ok := s.committed.get(userID)
	if !ok {
		return store.StreamPos{}, false
	}
	return st.pos, true
}

// Close implements store.Store. No Read or Write may run during or after it.
func (s *Store) Close() error {
	if s.writer != nil {
		defer s.writer.Close()
	}
	s.group.stop()
	if s.ck != nil {
		s.ck.close()
	}
	if s.wc != nil {
		s.wc.close()
	}
	for len(s.rc) > 0 {
		(<-s.rc).close()
	}
	return s.closeDBs()
}

func (s *Store) closeDBs() error {
	err1 := s.r.Close()
	err2 := s.w.Close()
	if err1 != nil {
		return err1
	}
	return err2
}

// takeWriter makes this store its database's writer, before its first write:
// the writer knows what it committed (stream positions, rows, the newest
// inbox id) only while no other process writes the file, so it locks
// <path>.writer until Close (or the process's end). Another process's store
// reads the database but fails every write while the lock is held. Only the
// group's leader calls it.
func (s *Store) takeWriter(ctx context.Context) error {
	if s.writing {
		return nil
	}
	if err := s.lockWriter(); err != nil {
		return err
	}
	var inboxID int64
	if err := s.wc.QueryRowContext(ctx, `SELECT COALESCE(MAX(id), 0) FROM inbox`).Scan(&inboxID); err != nil {
		return fmt.Errorf("read inbox ids: %w", err)
	}
	s.inboxID.Store(inboxID)
	resumes, err := deriveResumes(ctx, s.wc, s.now())
	if err != nil {
		return err
	}
	s.resumes.derived(resumes)
	s.writing = true
	s.ready.Store(true)
	return nil
}

// lockWriter takes the lock of takeWriter, once.
func (s *Store) lockWriter() error {
	if s.writer != nil {
		return nil
	}
	f, err := os.OpenFile(s.path+".writer", os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return fmt.Errorf("sqlitestore: open the writer's lock: %w", err)
	}
	if err := lockFile(f); err != nil {
		f.Close()
		return fmt.Errorf("sqlitestore: another process writes %s (it holds %s.writer): the embedded store has one writer process: %w", s.path, s.path, err)
	}
	s.writer = f
	return nil
}
