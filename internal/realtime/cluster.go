package realtime

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/centrifugal/centrifuge"

	"github.com/rtcagent/rtcagent/internal/reach"
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

// redisShard connects to Redis, waiting for it while it cannot be reached (a node
// started together with its Redis, or during a Redis restart, comes up once Redis
// does) until ctx ends. Once connected, the client reconnects on its own.
func redisShard(ctx context.Context, node *centrifuge.Node, url string, log *slog.Logger) (*centrifuge.RedisShard, error) {
	var shard *centrifuge.RedisShard
	err := reach.Wait(ctx, log, "redis", func() error {
		var err error
		shard, err = centrifuge.NewRedisShard(node, centrifuge.RedisShardConfig{Address: url})
		return err
	}, func(error) bool { return true })
	if err != nil {
		return nil, fmt.Errorf("redis shard: %w", err)
	}
	return shard, nil
}
