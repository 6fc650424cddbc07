package server

import (
	"context"
	"fmt"
	"log/slog"
	"net/url"
	"path/filepath"

	"github.com/redis/go-redis/v9"

	"github.com/rtcagent/rtcagent/internal/config"
	"github.com/rtcagent/rtcagent/internal/livebuf"
	"github.com/rtcagent/rtcagent/internal/session"
	"github.com/rtcagent/rtcagent/internal/store"
	"github.com/rtcagent/rtcagent/internal/store/sqlitestore"
)

// openStore picks the store: PostgreSQL with a database URL, else the SQLite
// file, whose one writer a server is from the start (sqlitestore.Options.Writer).
func openStore(ctx context.Context, cfg config.Config, log *slog.Logger, writer bool) (store.Store, error) {
	if cfg.DBURL != "" {
		return openPostgres(ctx, cfg.DBURL, log)
	}
	return sqlitestore.Open(ctx, filepath.Clean(cfg.DataFile), sqlitestore.Options{Writer: writer})
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
	// The runner bounds each read of the buffer with a deadline; the client
	// honours it instead of waiting for its own read timeout.
	opt.ContextTimeoutEnabled = true
	c := redis.NewClient(opt)
	return livebuf.NewRedis(c, cfg.RedisPfx+":"), c.Close, nil
}

// describeBackends names the store and the broker in use, for the startup log,
// without credentials.
func describeBackends(cfg config.Config) (storeDesc, broker string) {
	storeDesc = "sqlite " + filepath.Clean(cfg.DataFile)
	if cfg.DBURL != "" {
		storeDesc = "postgresql"
		if u, err := url.Parse(cfg.DBURL); err == nil {
			storeDesc += " " + u.Host + u.Path
			if schema := u.Query().Get("search_path"); schema != "" {
				storeDesc += " schema " + schema
			}
		}
	}
	broker = "memory"
	if cfg.RedisURL != "" {
		broker = "redis"
		if u, err := url.Parse(cfg.RedisURL); err == nil {
			broker += " " + u.Host + u.Path + " prefix " + cfg.RedisPfx
		}
	}
	return storeDesc, broker
}

// OpenStore opens the store the configuration names (PostgreSQL with
// DBURL, else the SQLite data file), for tools that read it directly.
func OpenStore(ctx context.Context, cfg config.Config, log *slog.Logger) (store.Store, error) {
	return openStore(ctx, cfg, log, false)
}
