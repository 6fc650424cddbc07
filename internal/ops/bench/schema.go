package bench

import (
	"context"
	"net/url"
	"time"

	"github.com/rtcagent/rtcagent/internal/store/pgstore"
)

// freshSchema points a PostgreSQL URL at a new schema named name (the stores
// create it) and returns a function that drops it. Every run starts from empty
// tables: work left in a shared schema by an earlier run, such as the sessions
// abandoned at the end of each window, would otherwise be claimed and drained by
// this run's server and load it.
func freshSchema(dbURL, name string) (string, func(), error) {
	u, err := url.Parse(dbURL)
	if err != nil {
		return "", nil, err
	}
	q := u.Query()
	q.Del("search_path")
	u.RawQuery = q.Encode()
	base := u.String()
	q.Set("search_path", name)
	u.RawQuery = q.Encode()
	drop := func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		_ = pgstore.DropSchema(ctx, base, name)
	}
	return u.String(), drop, nil
}
