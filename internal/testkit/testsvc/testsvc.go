// Package testsvc gives tests the PostgreSQL and Redis they need, and fresh
// SQLite stores. Without a reachable service a test is skipped, except when
// RTCAGENT_REQUIRE_SERVICES=1 (CI sets it), where it fails: the suite never
// passes by skipping there.
//
// RTCAGENT_TEST_POSTGRES_URL and RTCAGENT_TEST_REDIS_URL override the local
// defaults (trust auth on 127.0.0.1:5432 database test; 127.0.0.1:6379 db 0).
package testsvc

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"os"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/redis/go-redis/v9"

	"github.com/rtcagent/rtcagent/internal/store/pgstore"
)

func unavailable(t testing.TB, what string, err error) {
	t.Helper()
	if os.Getenv("RTCAGENT_REQUIRE_SERVICES") == "1" {
		t.Fatalf("%s required (RTCAGENT_REQUIRE_SERVICES=1) but unreachable: %v", what, err)
	}
	t.Skipf("%s unreachable: %v", what, err)
}

// PostgresURL returns the test database URL after checking it answers.
func PostgresURL(t testing.TB) string {
	t.Helper()
	url := os.Getenv("RTCAGENT_TEST_POSTGRES_URL")
	if url == "" {
		url = "postgres://postgres@127.0.0.1:5432/test?sslmode=disable"
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, url)
	if err == nil {
		err = conn.Ping(ctx)
		conn.Close(ctx)
	}
	if err != nil {
		unavailable(t, "PostgreSQL", err)
	}
	return url
}

// Schema names a new schema for one test and drops it at cleanup. Call it before
// opening stores on it, so they close (cleanups run last-in first-out) before the
// drop.
func Schema(t testing.TB, url string) string {
	t.Helper()
	name := "rtcagent_test_" + Unique()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := pgstore.DropSchema(ctx, url, name); err != nil {
			t.Error(err)
		}
	})
	return name
}

// RedisURL returns the test Redis URL after checking it answers.
func RedisURL(t testing.TB) string {
	t.Helper()
	url := os.Getenv("RTCAGENT_TEST_REDIS_URL")
	if url == "" {
		url = "redis://127.0.0.1:6379/0"
	}
	opt, err := redis.ParseURL(url)
	if err != nil {
		t.Fatal(err)
	}
	c := redis.NewClient(opt)
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if err := c.Ping(ctx).Err(); err != nil {
		unavailable(t, "Redis", err)
	}
	return url
}

// Unique returns a random name part, to keep a test's keys, channels and schemas
// apart from every other test's in shared services.
func Unique() string {
	var b [6]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}
