package pgstore

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/rtcagent/rtcagent/internal/store"
)

//go:embed migrations/*.sql
var migrations embed.FS

// Options tune a Store; the zero value is fine.
type Options struct {
	// Now is the clock of transactions (Tx.Now, lease and checkpoint expiry); default
	// time.Now. Leases compare the clocks of different nodes: keep them in sync
	// (NTP), with a skew well below the lease TTL.
	Now func() time.Time
	// Schema holds the tables; created when missing. Default "public". Tests use a
	// fresh schema each to stay isolated in one database.
	Schema string
}

// Store is the PostgreSQL implementation of store.Store.
type Store struct {
	pool *pgxpool.Pool
	// liveness is a pool of one connection for the node's liveness writes
	// (WriteLiveness): they never wait behind the pool's work.
	liveness *pgxpool.Pool
	now      func() time.Time
	hook     atomic.Pointer[func(store.Commit)]
	seq      sequencer
	// epoch is the initial epoch of every user stream: fixed per database (meta
	// table), so a user with no updates yet reads the same epoch before and after
	// the first one, on every node.
	epoch string
	// connCfg opens the listener's connection; channel is the schema's
	// notification channel (notify.go).
	connCfg   *pgx.ConnConfig
	channel   string
	listening atomic.Bool
	// decoded are the sessions, turns and RTCs kept decoded (decoded.go).
	decoded decodedRows
}

// maxAttempts bounds the runs of one Write's fn on serialisation failures and
// deadlocks.
const maxAttempts = 6

// Open connects to the database at url (a PostgreSQL URL or DSN; pgxpool settings
// such as pool_max_conns are honoured) and applies the migrations.
func Open(ctx context.Context, url string, opt Options) (*Store, error) {
	if opt.Now == nil {
		opt.Now = time.Now
	}
	if opt.Schema == "" {
		opt.Schema = "public"
	}
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		return nil, fmt.Errorf("pgstore: parse url: %w", err)
	}
	// Sent in the startup message of every pooled connection: no extra round trip,
	// and no connection can ever run a statement against another schema.
	cfg.ConnConfig.RuntimeParams["search_path"] = pgx.Identifier{opt.Schema}.Sanitize()
	// Each statement runs on the plan made once for it on the connection,
	// without its arguments' values: otherwise PostgreSQL plans it again at
	// each of its first five runs, and at every run of a statement whose plan
	// for the values looks cheaper (about a tenth of its CPU a round trip).
	// The EXPLAIN test checks that those plans look rows up by index. Set
	// once connected, not in the startup message, which a connection pooler
	// may refuse; a URL that sets plan_cache_mode keeps its own.
	if _, ok := cfg.ConnConfig.RuntimeParams["plan_cache_mode"]; !ok {
		cfg.AfterConnect = func(ctx context.Context, c *pgx.Conn) error {
			_, err := c.Exec(ctx, "SET plan_cache_mode = force_generic_plan")
			return err
		}
	}
	if cfg.ConnConfig.Tracer == nil {
		cfg.ConnConfig.Tracer = counter{}
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("pgstore: connect: %w", err)
	}
	lcfg := cfg.Copy()
	lcfg.MinConns, lcfg.MinIdleConns, lcfg.MaxConns = 0, 0, 1
	liveness, err := pgxpool.NewWithConfig(ctx, lcfg)
	if err != nil {
		pool.Close()
		return nil, fmt.Errorf("pgstore: connect: %w", err)
	}
	s := &Store{pool: pool, liveness: liveness, now: opt.Now, connCfg: cfg.ConnConfig, channel: channel(opt.Schema)}
	if err := s.migrate(ctx, opt.Schema); err != nil {
		s.Close()
		return nil, err
	}
	if err := s.requeue(ctx); err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}

// requeue puts on the ready queue every session with work and no live lease
// that is not on it: work queued by a node of a release before the queue
// (migration 007), still running beside this one during an upgrade, is found
// once the last of those nodes was replaced. It reads the whole inbox, once
// per start.
func (s *Store) requeue(ctx context.Context) error {
	_, err := s.pool.Exec(ctx, `INSERT INTO ready (session_id)
		SELECT DISTINCT i.session_id FROM inbox i
		WHERE NOT EXISTS (SELECT 1 FROM leases l WHERE l.session_id = i.session_id AND l.expires_at > $1)
		ON CONFLICT (session_id) DO NOTHING`, s.now())
	if err != nil {
		return fmt.Errorf("pgstore: requeue work: %w", err)
	}
	return nil
}

// migrate creates the schema, applies the missing migrations and reads the epoch,
// all in one transaction under an advisory lock: nodes starting together wait for
// the first, which applies everything, and then find it applied.
func (s *Store) migrate(ctx context.Context, schema string) error {
	ms, err := store.Migrations(migrations)
	if err != nil {
		return err
	}
	err = pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(hashtextextended($1, 0))`, "rtcagent/pgstore/migrate:"+schema); err != nil {
			return fmt.Errorf("migration lock: %w", err)
		}
		// CREATE SCHEMA IF NOT EXISTS checks the CREATE privilege on the database
		// even when the schema exists; a role without it can still use "public".
		var exists bool
		if err := tx.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM pg_namespace WHERE nspname = $1)`, schema).Scan(&exists); err != nil {
			return err
		}
		if !exists {
			if _, err := tx.Exec(ctx, `CREATE SCHEMA `+pgx.Identifier{schema}.Sanitize()); err != nil {
				return fmt.Errorf("create schema %s: %w", schema, err)
			}
		}
		if _, err := tx.Exec(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (
			version INTEGER PRIMARY KEY, applied_at TIMESTAMPTZ NOT NULL DEFAULT now())`); err != nil {
			return fmt.Errorf("create schema_migrations: %w", err)
		}
		for _, m := range ms {
			if err := applyOne(ctx, tx, m); err != nil {
				return err
			}
		}
		if _, err := tx.Exec(ctx, store.SQLEpochInit, store.NewEpoch()); err != nil {
			return fmt.Errorf("init epoch: %w", err)
		}
		return tx.QueryRow(ctx, store.SQLEpochGet).Scan(&s.epoch)
	})
	if err != nil {
		return fmt.Errorf("pgstore: migrate schema %s: %w", schema, err)
	}
	return nil
}

func applyOne(ctx context.Context, tx pgx.Tx, m store.Migration) error {
	name, v := m.Name, m.Version
	base := strings.TrimPrefix(name, "migrations/")
	var done bool
	if err := tx.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM schema_migrations WHERE version = $1)`, v).Scan(&done); err != nil || done {
		return err
	}
	body, err := migrations.ReadFile(name)
	if err != nil {
		return err
	}
	// No arguments: pgx sends it with the simple protocol, which runs several statements.
	if _, err := tx.Exec(ctx, string(body)); err != nil {
		return fmt.Errorf("apply %s: %w", base, err)
	}
	if step := migrationSteps[v]; step != nil {
		if err := step(ctx, tx); err != nil {
			return fmt.Errorf("apply %s: %w", base, err)
		}
	}
	_, err = tx.Exec(ctx, store.SQLMigrationApplied, v)
	return err
}

// SetCommitHook implements store.Store.
func (s *Store) SetCommitHook(h func(store.Commit)) { s.hook.Store(&h) }

// clock is the time of a new transaction, at the precision TIMESTAMPTZ keeps, so
// what a transaction writes reads back equal.
func (s *Store) clock() time.Time { return s.now().UTC().Truncate(time.Microsecond) }

// Write implements store.Store. It runs fn again, after a short random pause, when
// the transaction failed on a serialisation failure, a deadlock or a lost race for
// a MAX(seq)+1 key: fn must be re-runnable (see the package doc).
func (s *Store) Write(ctx context.Context, fn func(tx store.Tx) error) error {
	return s.write(ctx, s.pool, fn)
}

// WriteLiveness implements store.LivenessWriter: Write on a connection of
// its own, which no other work holds or waits for. When that connection
// cannot be opened (the server at max_connections, say), the write takes
// its turn in the pool.
func (s *Store) WriteLiveness(ctx context.Context, fn func(tx store.Tx) error) error {
	err := s.write(ctx, s.liveness, fn)
	if errors.Is(err, errAcquire) && ctx.Err() == nil {
		return s.write(ctx, s.pool, fn)
	}
	return err
}

// errAcquire is a transaction that got no connection.
var errAcquire = errors.New("no connection")

// write is Write on a connection of pool.
func (s *Store) write(ctx context.Context, pool *pgxpool.Pool, fn func(tx store.Tx) error) error {
	for attempt := 1; ; attempt++ {
		// A transaction run again guesses nothing (guess.go).
		retry, err := s.attempt(ctx, pool, fn, attempt == 1)
		if !retry || attempt == maxAttempts {
			return err
		}
		// Full jitter over a doubling window (2, 4, 8 … ms): the transactions
		// that collided should not collide again.
		pause := time.Duration(rand.Int64N(int64(time.Millisecond) << attempt))
		select {
		case <-time.After(pause):
		case <-ctx.Done():
			return err
		}
	}
}

// attempt runs fn in one transaction and reports whether a failure is worth a retry.
// The transaction is begun and ended by hand on a pooled connection, so that
// BEGIN goes to the server with fn's first statement and COMMIT with its last
// writes (pipeline.go).
func (s *Store) attempt(ctx context.Context, pool *pgxpool.Pool, fn func(tx store.Tx) error, guess bool) (retry bool, err error) {
	counts.writes.Add(1)
	conn, err := pool.Acquire(ctx)
	if err != nil {
		return false, fmt.Errorf("pgstore: begin: %w: %w", errAcquire, err)
	}
	t := &tx{q: conn, seq: &s.seq, guess: guess, channel: s.channel, decoded: &s.decoded}
	t.Shared = store.NewShared(driver{t}, store.TxState{Ctx: ctx, At: s.clock(), Writable: true, Epoch: s.epoch})
	// Explicit: the server default (default_transaction_isolation) may differ, and
	// the locking below is designed for READ COMMITTED.
	_ = t.later(nil, beginWrite)
	var hook func(store.Commit) // set once committed
	// Deferred so that a panicking fn still lets the user's later commits through.
	defer func() { t.settle(hook) }()
	// Runs first (LIFO). A connection left inside a transaction (fn failed, or
	// COMMIT was not reached) is rolled back, not cancellable: the rollback
	// should reach the server even when ctx ended; the pool drops a connection
	// that is still not idle.
	defer func() {
		if st := conn.Conn().PgConn().TxStatus(); st != 'I' && !conn.Conn().IsClosed() {
			_, _ = conn.Exec(context.WithoutCancel(ctx), "ROLLBACK")
		}
		conn.Release()
	}()

	err = fn(t)
	if err == nil {
		err = t.raiseStreams()
	}
	if err == nil {
		err = t.Batch.SealAll(t.writeUpdate)
	}
	if err != nil {
		// After a failed statement PostgreSQL refuses everything until rollback, so
		// a retryable failure dooms the transaction even if fn swallowed it.
		return t.retry != nil || retryable(err), err
	}
	if t.failed != nil {
		return t.retry != nil || retryable(t.failed), fmt.Errorf("pgstore: transaction failed: %w", t.failed)
	}
	if t.retry != nil {
		return true, fmt.Errorf("pgstore: transaction failed: %w", t.retry)
	}
	if len(t.pending) == 1 && t.pending[0].sql == beginWrite { // fn sent and wrote nothing
		t.pending = nil
	} else {
		t.queueReady()
		notified := t.notifyNotLeased()
		var rolledBack bool
		_ = t.later(func(tag pgconn.CommandTag) error {
			rolledBack = tag.String() == "ROLLBACK" // COMMIT of a failed transaction
			return nil
		}, `COMMIT`)
		if err := t.flush(); err != nil {
			return retryable(err), fmt.Errorf("pgstore: commit: %w", err)
		}
		if rolledBack {
			return false, fmt.Errorf("pgstore: commit: %w", pgx.ErrTxCommitRollback)
		}
		if notified {
			notifyCounts.sent.Add(1)
		}
		notifyCounts.sent.Add(int64(t.ready.notified))
	}
	if h := s.hook.Load(); h != nil {
		hook = *h
	}
	return false, nil
}

const beginWrite = `BEGIN ISOLATION LEVEL READ COMMITTED`

// retryable reports errors after which running the whole transaction again can
// succeed.
func retryable(err error) bool {
	var pe *pgconn.PgError
	if !errors.As(err, &pe) {
		return false
	}
	switch pe.Code {
	case "40001", "40P01": // serialization_failure, deadlock_detected
		return true
	case "RA412": // a guess was wrong (guess.go): run again without guessing
		return true
	case "23505": // unique_violation
		// seq is MAX(seq)+1 read in the transaction: a concurrent one took it
		// first. Run again, the read sees it (sqlitestore serialises instead).
		return pe.ConstraintName == "turns_session_seq" || pe.ConstraintName == "messages_session_seq"
	}
	return false
}

// Read implements store.Store: one REPEATABLE READ, READ ONLY transaction, so every
// read of fn sees the same snapshot.
func (s *Store) Read(ctx context.Context, fn func(tx store.Tx) error) error {
	counts.reads.Add(1)
	ptx, err := s.pool.BeginTx(ctx, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly})
	if err != nil {
		return fmt.Errorf("pgstore: begin read: %w", err)
	}
	defer func() { _ = ptx.Rollback(context.WithoutCancel(ctx)) }()
	t := &tx{q: ptx, decoded: &s.decoded}
	t.Shared = store.NewShared(driver{t}, store.TxState{Ctx: ctx, At: s.clock(), Epoch: s.epoch})
	return fn(t)
}

// Close implements store.Store: it waits for borrowed connections to come back.
func (s *Store) Close() error {
	s.pool.Close()
	s.liveness.Close()
	return nil
}
