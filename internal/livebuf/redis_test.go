package livebuf

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"os"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// redisClient connects to the test Redis (RTCAGENT_TEST_REDIS_URL, default
// redis://127.0.0.1:6379/0). Without one the test is skipped, except when
// RTCAGENT_REQUIRE_SERVICES=1 (CI), where it fails.
func redisClient(t *testing.T) *redis.Client {
	url := os.Getenv("RTCAGENT_TEST_REDIS_URL")
	if url == "" {
		url = "redis://127.0.0.1:6379/0"
	}
	opt, err := redis.ParseURL(url)
	if err != nil {
		t.Fatal(err)
	}
	c := redis.NewClient(opt)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if err := c.Ping(ctx).Err(); err != nil {
		if os.Getenv("RTCAGENT_REQUIRE_SERVICES") == "1" {
			t.Fatalf("redis required: %v", err)
		}
		t.Skipf("no redis: %v", err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

func TestRedisPartials(t *testing.T) {
	c := redisClient(t)
	var b [6]byte
	_, _ = rand.Read(b[:])
	p := NewRedis(c, "rtcagent-test-"+hex.EncodeToString(b[:])+":")
	ctx := context.Background()
	if _, _, ok, err := p.Get(ctx, "m"); ok || err != nil {
		t.Fatalf("empty: %v %v", ok, err)
	}
	for i, d := range []string{"héllo", " ", "wörld"} {
		if err := p.Append(ctx, "m", int64(i+1), d); err != nil {
			t.Fatal(err)
		}
	}
	text, seq, ok, err := p.Get(ctx, "m")
	if err != nil || !ok || text != "héllo wörld" || seq != 3 {
		t.Fatalf("got %q %d %v %v", text, seq, ok, err)
	}
	ttl, err := c.PTTL(ctx, p.key("m")).Result()
	if err != nil || ttl <= 0 || ttl > TTL {
		t.Fatalf("ttl %v %v", ttl, err)
	}
	if err := p.Drop(ctx, "m"); err != nil {
		t.Fatal(err)
	}
	if _, _, ok, _ := p.Get(ctx, "m"); ok {
		t.Fatal("dropped partial still there")
	}
}
