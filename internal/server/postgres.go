package server

import (
	"context"
	"fmt"
	"net/url"

	"github.com/rtcagent/rtcagent/internal/store"
	"github.com/rtcagent/rtcagent/internal/store/pgstore"
)

// openPostgres opens the PostgreSQL store. A search_path parameter in the URL
// names the schema that holds the tables (created when missing), so several
// deployments or test runs can share one database.
func openPostgres(ctx context.Context, raw string) (store.Store, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return nil, fmt.Errorf("database url: %w", err)
	}
	q := u.Query()
	schema := q.Get("search_path")
	q.Del("search_path")
	u.RawQuery = q.Encode()
	return pgstore.Open(ctx, u.String(), pgstore.Options{Schema: schema})
}
