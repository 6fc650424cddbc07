package e2e

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"os"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// requireRedis returns the test Redis URL. Without a reachable Redis the test is
// skipped, except with RTCAGENT_REQUIRE_SERVICES=1 (CI), where it fails.
func requireRedis(t testing.TB) string {
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
		if os.Getenv("RTCAGENT_REQUIRE_SERVICES") == "1" {
			t.Fatalf("redis required: %v", err)
		}
		t.Skipf("no redis at %s: %v", url, err)
	}
	return url
}

// uniquePrefix isolates a test's keys and channels in a shared Redis.
func uniquePrefix() string {
	var b [6]byte
	_, _ = rand.Read(b[:])
	return "rtcagent-test-" + hex.EncodeToString(b[:])
}
