// Package livebuf keeps the partial text of streaming messages in Redis, so any
// node of a cluster can answer v1.message.get for a message another node streams.
// One key per message (a hash of text and seq), touched by one script whose only
// key is in KEYS (Redis Cluster safe); the key expires an hour after the last
// append, so a crashed streamer leaves nothing behind for long.
package livebuf

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"
)

// TTL of a partial text after its last append.
const TTL = time.Hour

// appendScript appends ARGV[2] to the text and sets seq to ARGV[1], then refreshes
// the expiry: in one script, so no expiry is ever separated from its write.
var appendScript = redis.NewScript(`
redis.call('HSET', KEYS[1], 's', ARGV[1])
redis.call('HSET', KEYS[1], 't', (redis.call('HGET', KEYS[1], 't') or '') .. ARGV[2])
redis.call('PEXPIRE', KEYS[1], ARGV[3])
return 1`)

// Redis implements session.Partials on a Redis client.
type Redis struct {
	c      redis.UniversalClient
	prefix string
}

// NewRedis returns partials stored under prefix (e.g. "rtcagent:").
func NewRedis(c redis.UniversalClient, prefix string) *Redis { return &Redis{c: c, prefix: prefix} }

func (r *Redis) key(id string) string { return r.prefix + "partial:{" + id + "}" }

// Append implements session.Partials.
func (r *Redis) Append(ctx context.Context, id string, seq int64, delta string) error {
	return appendScript.Run(ctx, r.c, []string{r.key(id)}, seq, delta, TTL.Milliseconds()).Err()
}

// Get implements session.Partials.
func (r *Redis) Get(ctx context.Context, id string) (string, int64, bool, error) {
	vals, err := r.c.HMGet(ctx, r.key(id), "t", "s").Result()
	if err != nil {
		return "", 0, false, fmt.Errorf("get partial %s: %w", id, err)
	}
	if vals[0] == nil || vals[1] == nil {
		return "", 0, false, nil
	}
	text, _ := vals[0].(string)
	var seq int64
	if s, ok := vals[1].(string); ok {
		_, _ = fmt.Sscan(s, &seq)
	}
	return text, seq, true, nil
}

// Drop implements session.Partials.
func (r *Redis) Drop(ctx context.Context, id string) error {
	err := r.c.Del(ctx, r.key(id)).Err()
	if errors.Is(err, redis.Nil) {
		return nil
	}
	return err
}
