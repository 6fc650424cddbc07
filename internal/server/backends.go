package server

import (
	"context"
	"fmt"
	"log/slog"
	"path/filepath"

	"github.com/redis/go-redis/v9"

	"github.com/rtcagent/rtcagent/internal/config"
	"github.com/rtcagent/rtcagent/internal/livebuf"
	"github.com/rtcagent/rtcagent/internal/session"
	"github.com/rtcagent/rtcagent/internal/store"
	"github.com/rtcagent/rtcagent/internal/store/sqlitestore"
)

// openStore picks the store: PostgreSQL with a database URL, else the SQLite file.
func openStore(ctx context.Context, cfg config.Config, log *slog.Logger) (store.Store, error) {
	if cfg.DBURL != "" {
		return openPostgres(ctx, cfg.DBURL, log)
	}
	return sqlitestore.Open(ctx, filepath.Clean(cfg.DataFile), sqlitestore.Options{})
}

// openPartials picks where streaming text is buffered: Redis in a cluster (any node
// answers v1.message.get), else this process's memory.
func openPartials(cfg config.Config) (session.Partials, func() error, error) {
	if cfg.RedisURL == "" {
		return session.NewMemoryPartials(), func() error { return nil }, nil
	}
	opt, err := redis.ParseURL(cfg.RedisURL)
	if err != nil {
		return nil, nil, fmt.Errorf("redis url: %w", err)
	}
	c := redis.NewClient(opt)
	return livebuf.NewRedis(c, cfg.RedisPfx+":"), c.Close, nil
}
