package pgstore

import (
	"context"

	"github.com/jackc/pgx/v5"

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
