package server

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/url"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/rtcagent/rtcagent/internal/reach"
	"github.com/rtcagent/rtcagent/internal/store"
	"github.com/rtcagent/rtcagent/internal/store/pgstore"
)

// openPostgres opens the PostgreSQL store. A search_path parameter in the URL
// names the schema that holds the tables (created when missing), so several
// deployments or test runs can share one database. While PostgreSQL cannot be
// reached (no answer, or still starting up) it waits for it, until ctx ends; an
// answer that refuses (authentication, a missing database) fails at once.
func openPostgres(ctx context.Context, raw string, log *slog.Logger) (store.Store, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return nil, fmt.Errorf("database url: %w", err)
	}
	q := u.Query()
	schema := q.Get("search_path")
	q.Del("search_path")
	u.RawQuery = q.Encode()
	var st store.Store
	err = reach.Wait(ctx, log, "postgresql", func() error {
		var err error
		st, err = pgstore.Open(ctx, u.String(), pgstore.Options{Schema: schema})
		return err
	}, unreachable)
	if err != nil {
		return nil, err
	}
	return st, nil
}

// unreachable reports a connection that failed before PostgreSQL answered, or
// that it refused because it is starting up.
func unreachable(err error) bool {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return pe.Code == "57P03" // cannot_connect_now
	}
	var ce *pgconn.ConnectError
	return errors.As(err, &ce)
}
