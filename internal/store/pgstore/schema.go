package pgstore

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
)

// DropSchema removes a schema and everything in it (tests and load runs that
// gave a store a schema of its own). url is a connection URL without search_path.
func DropSchema(ctx context.Context, url, schema string) error {
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		return fmt.Errorf("drop schema %s: %w", schema, err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, "DROP SCHEMA IF EXISTS "+pgx.Identifier{schema}.Sanitize()+" CASCADE"); err != nil {
		return fmt.Errorf("drop schema %s: %w", schema, err)
	}
	return nil
}
