package e2e

import (
	"testing"

	"github.com/rtcagent/rtcagent/internal/testkit/testsvc"
)

func requireRedis(t testing.TB) string { return testsvc.RedisURL(t) }

// uniquePrefix isolates a test's keys and channels in a shared Redis.
func uniquePrefix() string { return "rtcagent-test-" + testsvc.Unique() }
