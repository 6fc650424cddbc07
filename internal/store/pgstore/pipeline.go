package pgstore

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/rtcagent/rtcagent/internal/store"
)

// querier is what a transaction sends statements through: a pooled connection
// (write transactions, which begin and commit by hand so that BEGIN and COMMIT
// travel with other statements) or a pgx.Tx (read transactions).
type querier interface {
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
	SendBatch(ctx context.Context, b *pgx.Batch) pgx.BatchResults
}

// A write whose outcome nothing in the transaction needs at once (an insert, a
// delete, the lease release, BEGIN) is not sent when it is made: it waits in
// tx.later and goes to the server in one pipeline with the next statement that
// needs an answer, or with COMMIT. The server runs the statements in the order
// they were made, so every read sees the writes made before it; only the number
// of exchanges with the server changes. A write that fails this way fails the
// next statement and, whatever fn does with that error, the transaction
// (tx.failed): it does not commit. Such a failure must be the server's (an
// error, which makes it skip the rest of the pipeline), never a verdict of the
// client on a result: the statements queued after it, COMMIT included, would
// have run.

// A check whose failure must stop the transaction (a compare-and-set, the
// lease check) is made by the server: the statement calls rtcagent_fail
// (migration 006) when it fails, so it can wait in the pipeline like a write.
// serverCheck maps that function's codes to the store's errors.

// deferred is a statement waiting in tx.later. check, when set, judges its
// command tag (only COMMIT's: see above); row or rows, when set, read its
// result instead (only reads, or a result the transaction uses after its
// commit); mapErr, when set, translates its error.
type deferred struct {
	sql    string
	args   []any
	check  func(pgconn.CommandTag) error
	row    func(pgx.Row) error
	rows   func(pgx.Rows) error
	mapErr func(error) error
	// guard, on a user stream's lock, says once its row was read whether the
	// reads sent in one statement with it (runsOf) stand (see guardedRead).
	guard func() bool
	// optional marks a read whose answer may be dropped: nothing waits for it,
	// and what asks for it later reads it again when it is missing. Only such
	// reads go in one statement with a guarded lock.
	optional bool
	// lease marks a lease check (LeaseCheck): a stream lock queued right
	// after it takes it into its own statement (lockThrough).
	lease bool
}

// A user stream's lock and the reads that go right after it are sent as one
// statement: a locking read that waited for another transaction returns the
// locked row as that transaction left it, but every other row of the
// statement as its snapshot, taken before the wait, saw it. A transaction
// that writes a user's session, turn, message or RTC also writes the user's
// stream row (the Topic update raises its top; raiseStreams covers a write
// without one), so the lock also returns whether the row version it locked is
// the one its snapshot saw (xmin): when it is, nothing the reads return
// changed since the snapshot and they stand; when not, their answers are
// dropped, and each read is made again, after the lock, where it is needed
// (the prefetched reads fill caches that are asked only when present).

// serverCheck maps a failure raised by rtcagent_fail to the store's error
// (wrapping the server's message) and leaves other errors as they are.
func serverCheck(err error) error {
	var pe *pgconn.PgError
	if !errors.As(err, &pe) {
		return err
	}
	switch pe.Code {
	case "RA404":
		return fmt.Errorf("%s: %w", pe.Message, store.ErrNotFound)
	case "RA409":
		return fmt.Errorf("%s: %w", pe.Message, store.ErrConflict)
	case "RA410":
		return fmt.Errorf("%s: %w", pe.Message, store.ErrLeaseLost)
	}
	return err
}

// laterCheck queues a statement whose check the server makes (see above).
func (t *tx) laterCheck(query string, args ...any) error {
	if err := t.later(nil, query, args...); err != nil {
		return err
	}
	t.pending[len(t.pending)-1].mapErr = serverCheck
	return nil
}

// defer queues a write (see above).
func (t *tx) later(check func(pgconn.CommandTag) error, query string, args ...any) error {
	if !t.Writable {
		return errReadOnly
	}
	if t.failed != nil {
		return t.failed
	}
	t.pending = append(t.pending, deferred{sql: query, args: args, check: check})
	return nil
}

// pipeline sends the waiting writes and then q (when q.sql is set) in one
// batch and returns the batch, positioned at q's result. The caller reads q's
// result and closes the batch. With no waiting writes it returns nil. Runs of
// waiting statements that touch different tables go as one (fuse.go).
func (t *tx) pipeline(q deferred) (pgx.BatchResults, error) {
	if t.failed != nil {
		return nil, t.failed
	}
	if len(t.pending) == 0 {
		return nil, nil
	}
	runs := runsOf(t.pending)
	fused := make([]*fusedSQL, len(runs))
	b := &pgx.Batch{}
	for i, r := range runs {
		if len(r) == 1 {
			b.Queue(r[0].sql, r[0].args...)
			continue
		}
		var args []any
		for _, d := range r {
			args = append(args, d.args...)
		}
		fused[i] = fuse(r)
		b.Queue(fused[i].sql, args...)
	}
	if q.sql != "" {
		b.Queue(q.sql, q.args...)
	}
	t.pending = nil
	br := t.q.SendBatch(t.Ctx, b)
	for i, r := range runs {
		var err error
		if fused[i] == nil {
			err = readOne(br, r[0])
		} else {
			err = readFused(br, r, fused[i])
		}
		if err != nil {
			_ = br.Close()
			t.failed = t.note(err)
			return nil, err
		}
	}
	return br, nil
}

// runsOf splits ds into runs sent as one statement each: a run of more than
// one is of fusable statements, none locking rows before another, none
// writing a table another one touches (fuse.go).
func runsOf(ds []deferred) [][]deferred {
	var runs [][]deferred
	start := 0
	for i, d := range ds {
		if i > start {
			run := ds[start:i]
			joins := fusable(d) && fusable(ds[start]) && (guardedRead(run, d) || !shapeOf(ds[i-1].sql).locks && !guarded(run))
			for _, m := range ds[start:i] {
				joins = joins && !shapeOf(m.sql).conflicts(shapeOf(d.sql))
			}
			if !joins {
				runs = append(runs, ds[start:i])
				start = i
			}
		}
	}
	return append(runs, ds[start:])
}

// guardedRead reports whether d may follow run in one statement behind a
// locking member of it: only an optional plain read may, behind a user
// stream's lock (deferred.guard) and other such reads.
func guardedRead(run []deferred, d deferred) bool {
	sd := shapeOf(d.sql)
	if !d.optional || !sd.selects || sd.locks || len(sd.writes) > 0 {
		return false
	}
	for i := len(run) - 1; i >= 0; i-- {
		if run[i].guard != nil {
			return true
		}
		if s := shapeOf(run[i].sql); !s.selects || s.locks || len(s.writes) > 0 {
			return false
		}
	}
	return false
}

// guarded reports whether run has a guarded lock (deferred.guard): what
// follows it in the run is only reads that may be dropped.
func guarded(run []deferred) bool {
	return slices.ContainsFunc(run, func(d deferred) bool { return d.guard != nil })
}

// readOne reads the result of a statement sent alone.
func readOne(br pgx.BatchResults, d deferred) error {
	var err error
	if d.row != nil {
		err = d.row(br.QueryRow())
	} else if d.rows != nil {
		var rows pgx.Rows
		if rows, err = br.Query(); err == nil {
			err = d.rows(rows)
			rows.Close()
			if err == nil {
				err = rows.Err()
			}
		}
	} else {
		var tag pgconn.CommandTag
		tag, err = br.Exec()
		if err == nil && d.check != nil {
			err = d.check(tag)
		}
	}
	if err != nil && d.mapErr != nil {
		err = d.mapErr(err)
	}
	return err
}

// readFused reads the result row of a fused run and gives each member that
// reads its row its own part of it. The statement's failure is the run's: a
// check's (serverCheck) or the server's.
func readFused(br pgx.BatchResults, run []deferred, f *fusedSQL) error {
	rows, err := br.Query()
	if err != nil {
		return serverCheck(err)
	}
	defer rows.Close()
	if !rows.Next() {
		rows.Close()
		if err := rows.Err(); err != nil {
			return serverCheck(err)
		}
		return errors.New("pgstore: a fused statement returned no row")
	}
	fds, vals := rows.FieldDescriptions(), rows.RawValues()
	var starts []int
	for i, fd := range fds {
		if fd.Name == "rtcagent_row" {
			starts = append(starts, i)
		}
	}
	starts = append(starts, len(fds))
	part := 0
	stand := true // the reads after a guard stand (deferred.guard)
	for k, d := range run {
		if !f.parts[k] {
			continue
		}
		a, b := starts[part], starts[part+1]
		part++
		if d.row == nil || !stand {
			continue
		}
		r := partRow{m: rows.Conn().TypeMap(), fds: fds[a+1 : b], vals: vals[a+1 : b], present: vals[a] != nil}
		if err := d.row(r); err != nil {
			if d.mapErr != nil {
				err = d.mapErr(err)
			}
			return err
		}
		if d.guard != nil {
			stand = d.guard()
		}
	}
	rows.Close()
	return serverCheck(rows.Err())
}

// partRow is one member's part of a fused statement's result row.
type partRow struct {
	m       *pgtype.Map
	fds     []pgconn.FieldDescription
	vals    [][]byte
	present bool
}

// detach returns r, or for a part of a fused row a copy that outlives the row.
func detach(r pgx.Row) pgx.Row {
	p, ok := r.(partRow)
	if !ok {
		return r
	}
	vals := make([][]byte, len(p.vals))
	for i, v := range p.vals {
		if v != nil {
			vals[i] = append([]byte{}, v...)
		}
	}
	p.vals = vals
	return p
}

func (r partRow) Scan(dest ...any) error {
	if !r.present {
		return pgx.ErrNoRows
	}
	return pgx.ScanRow(r.m, r.fds, r.vals, dest...)
}

// flush sends the waiting writes.
func (t *tx) flush() error {
	br, err := t.pipeline(deferred{})
	if br != nil {
		err = br.Close()
		if err != nil {
			t.failed = t.note(err)
		}
	}
	return err
}

// exec sends query, after the waiting writes, and returns its command tag.
func (t *tx) exec(query string, args ...any) (pgconn.CommandTag, error) {
	if !t.Writable {
		return pgconn.CommandTag{}, errReadOnly
	}
	br, err := t.pipeline(deferred{sql: query, args: args})
	if err != nil {
		return pgconn.CommandTag{}, err
	}
	if br == nil {
		tag, err := t.q.Exec(t.Ctx, query, args...)
		return tag, t.note(err)
	}
	tag, err := br.Exec()
	if cerr := br.Close(); err == nil {
		err = cerr
	}
	return tag, t.note(err)
}

type row struct {
	t   *tx
	r   pgx.Row
	br  pgx.BatchResults // closed after Scan, when r came from a pipeline
	err error            // a waiting write failed
}

func (r row) Scan(dst ...any) error {
	if r.err != nil {
		return r.err
	}
	err := r.r.Scan(dst...)
	if r.br != nil {
		if cerr := r.br.Close(); err == nil || errors.Is(err, pgx.ErrNoRows) && cerr != nil {
			err = cerr
		}
	}
	return r.t.note(err)
}

// queryRow sends query, after the waiting writes, for one row. It waits last
// among them, so it may travel in their last run (fuse.go).
func (t *tx) queryRow(query string, args ...any) row {
	if t.failed != nil {
		return row{t: t, err: t.failed}
	}
	if len(t.pending) == 0 {
		return row{t: t, r: t.q.QueryRow(t.Ctx, query, args...)}
	}
	var got pgx.Row
	t.pending = append(t.pending, deferred{sql: query, args: args, row: func(r pgx.Row) error {
		got = detach(r)
		return nil
	}})
	br, err := t.pipeline(deferred{})
	if err != nil {
		return row{t: t, err: err}
	}
	return row{t: t, r: got, br: br}
}

// batchRows closes the batch the rows came from with them.
type batchRows struct {
	pgx.Rows
	br pgx.BatchResults
}

func (r *batchRows) Close() {
	r.Rows.Close()
	if r.br != nil {
		_ = r.br.Close()
		r.br = nil
	}
}

// query sends query, after the waiting writes, for rows; close them.
func (t *tx) query(query string, args ...any) (pgx.Rows, error) {
	br, err := t.pipeline(deferred{sql: query, args: args})
	if err != nil {
		return nil, err
	}
	if br == nil {
		rows, err := t.q.Query(t.Ctx, query, args...)
		return rows, t.note(err)
	}
	rows, err := br.Query()
	if err != nil {
		_ = br.Close()
		return nil, t.note(err)
	}
	return &batchRows{Rows: rows, br: br}, nil
}
