package pgstore

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

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
}

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
	if !t.writable {
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
// result and closes the batch. With no waiting writes it returns nil.
func (t *tx) pipeline(q deferred) (pgx.BatchResults, error) {
	if t.failed != nil {
		return nil, t.failed
	}
	if len(t.pending) == 0 {
		return nil, nil
	}
	b := &pgx.Batch{}
	for _, d := range t.pending {
		b.Queue(d.sql, d.args...)
	}
	if q.sql != "" {
		b.Queue(q.sql, q.args...)
	}
	ds := t.pending
	t.pending, t.rtcWrite = nil, rtcWrite{}
	br := t.q.SendBatch(t.ctx, b)
	for _, d := range ds {
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
		if err != nil {
			_ = br.Close()
			t.failed = t.note(err)
			return nil, err
		}
	}
	return br, nil
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
	if !t.writable {
		return pgconn.CommandTag{}, errReadOnly
	}
	br, err := t.pipeline(deferred{sql: query, args: args})
	if err != nil {
		return pgconn.CommandTag{}, err
	}
	if br == nil {
		tag, err := t.q.Exec(t.ctx, query, args...)
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

// queryRow sends query, after the waiting writes, for one row.
func (t *tx) queryRow(query string, args ...any) row {
	br, err := t.pipeline(deferred{sql: query, args: args})
	if err != nil {
		return row{t: t, err: err}
	}
	if br == nil {
		return row{t: t, r: t.q.QueryRow(t.ctx, query, args...)}
	}
	return row{t: t, r: br.QueryRow(), br: br}
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
		rows, err := t.q.Query(t.ctx, query, args...)
		return rows, t.note(err)
	}
	rows, err := br.Query()
	if err != nil {
		_ = br.Close()
		return nil, t.note(err)
	}
	return &batchRows{Rows: rows, br: br}, nil
}
