package realtime

import (
	"fmt"

	"github.com/centrifugal/centrifuge"
)

// newInnerBroker returns the broker that carries publications: in memory for one
// node, Redis for a cluster. With Redis it also installs the presence manager and
// the controller (control messages between nodes), which the wrapping topic broker
// would otherwise hide.
func newInnerBroker(node *centrifuge.Node, cfg Config) (centrifuge.Broker, error) {
	if cfg.RedisURL == "" {
		return centrifuge.NewMemoryBroker(node, centrifuge.MemoryBrokerConfig{})
	}
	prefix := cfg.RedisPrefix
	if prefix == "" {
		prefix = "rtcagent"
	}
	shard, err := centrifuge.NewRedisShard(node, centrifuge.RedisShardConfig{Address: cfg.RedisURL})
	if err != nil {
		return nil, fmt.Errorf("redis shard: %w", err)
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
