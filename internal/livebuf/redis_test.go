package livebuf

import (
	"context"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/rtcagent/rtcagent/internal/testkit/testsvc"
)

func redisClient(t *testing.T) *redis.Client {
	opt, err := redis.ParseURL(testsvc.RedisURL(t))
	if err != nil {
		t.Fatal(err)
	}
	c := redis.NewClient(opt)
	t.Cleanup(func() { c.Close() })
	return c
}

func TestRedisPartials(t *testing.T) {
	c := redisClient(t)
	p := NewRedis(c, "rtcagent-test-"+testsvc.Unique()+":")
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
