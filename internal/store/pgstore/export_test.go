package pgstore

import (
	"context"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/rtcagent/rtcagent/internal/store"
)

// MigrateTo creates schema with the migrations up to version applied, as a
// database of an older release (tests of the later migrations).
func MigrateTo(ctx context.Context, url, schema string, version int) error {
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		return err
	}
	defer conn.Close(ctx)
	ms, err := store.Migrations(migrations)
	if err != nil {
		return err
	}
	return pgx.BeginFunc(ctx, conn, func(tx pgx.Tx) error {
		id := pgx.Identifier{schema}.Sanitize()
		if _, err := tx.Exec(ctx, `CREATE SCHEMA `+id+`; SET LOCAL search_path TO `+id+`;
			CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, applied_at TIMESTAMPTZ NOT NULL DEFAULT now())`); err != nil {
			return err
		}
		for _, m := range ms {
			if m.Version <= version {
				if err := applyOne(ctx, tx, m); err != nil {
					return err
				}
			}
		}
		return nil
	})
}

// Pool is the store's connection pool.
func Pool(s *Store) *pgxpool.Pool { return s.pool }

// TxInternals queues statements in a write transaction as the store's own
// methods do.
type TxInternals struct{ t *tx }

func Internals(t store.Tx) TxInternals { return TxInternals{t.(*tx)} }

// Queue queues a statement; row, when set, reads its result.
func (x TxInternals) Queue(sql string, row func(pgx.Row) error, args ...any) {
	x.t.pending = append(x.t.pending, deferred{sql: sql, args: args, row: row})
}

// QueueCAS queues a compare-and-set of the row id of table from status.
func (x TxInternals) QueueCAS(table, set, id, status string) error {
	return x.t.laterCheck(casSQL(table, set, 2), id, status)
}

func (x TxInternals) QueryRow(sql string, args ...any) pgx.Row { return x.t.queryRow(sql, args...) }

// ClaimCandidates is the claim pass's statement ($1 now, $2 the limit).
const ClaimCandidates = claimCandidates

// CloseLiveness closes the connection pool of the store's liveness writes,
// as if it could not connect.
func CloseLiveness(s *Store) { s.liveness.Close() }
