package realtime

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/centrifugal/centrifuge"
)

// newInnerBroker returns the broker that carries publications: in memory for one
// node, Redis for a cluster. With Redis it also installs the presence manager and
// the controller (control messages between nodes), which the wrapping topic broker
// would otherwise hide.
func newInnerBroker(ctx context.Context, node *centrifuge.Node, cfg Config, log *slog.Logger) (centrifuge.Broker, error) {
	if cfg.RedisURL == "" {
		return centrifuge.NewMemoryBroker(node, centrifuge.MemoryBrokerConfig{})
	}
	prefix := cfg.RedisPrefix
	if prefix == "" {
		prefix = "rtcagent"
	}
	shard, err := redisShard(ctx, node, cfg.RedisURL, log)
	if err != nil {
		return nil, err
	}
	shards := []*centrifuge.RedisShard{shard}
	broker, err := centrifuge.NewRedisBroker(node, centrifuge.RedisBrokerConfig{Prefix: prefix, Shards: shards})
	if err != nil {
		return nil, fmt.Errorf("redis broker: %w", err)
	}
	pm, err := centrifuge.NewRedisPresenceManager(node, centrifuge.RedisPresenceManagerConfig{Prefix: prefix, Shards: shards})
	if err != nil {
		return nil, fmt.Errorf("redis presence: %w", err)
	}
	node.SetController(broker)
	node.SetPresenceManager(pm)
	return broker, nil
}

// Waits between attempts to reach Redis at start, doubled up to the maximum.
const (
	redisRetryFirst = 100 * time.Millisecond
	redisRetryMax   = 5 * time.Second
)

// redisShard connects to Redis, waiting for it while it cannot be reached (a node
// started together with its Redis, or during a Redis restart, comes up once Redis
// does) until ctx ends. Once connected, the client reconnects on its own.
func redisShard(ctx context.Context, node *centrifuge.Node, url string, log *slog.Logger) (*centrifuge.RedisShard, error) {
	wait := redisRetryFirst
	for attempt := 1; ; attempt++ {
		shard, err := centrifuge.NewRedisShard(node, centrifuge.RedisShardConfig{Address: url})
		if err == nil {
			if attempt > 1 {
				log.Info("redis reachable", "attempts", attempt)
			}
			return shard, nil
		}
		log.Warn("redis unreachable, waiting for it", "attempt", attempt, "retry_in", wait, "err", err)
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("redis shard: %w (gave up waiting: %w)", err, ctx.Err())
		case <-time.After(wait):
		}
		wait = min(2*wait, redisRetryMax)
	}
}
