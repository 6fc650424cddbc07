package chaos_test

import (
	"context"
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/rtcagent/rtcagent/internal/ops/chaos"
	"github.com/rtcagent/rtcagent/internal/testkit/testsvc"
)

type logWriter struct{ t *testing.T }

func (w logWriter) Write(p []byte) (int, error) {
	w.t.Log(string(p))
	return len(p), nil
}

func run(t *testing.T, o chaos.Options) {
	t.Helper()
	o.ServerCmd = []string{testsvc.ServerBinary(t)}
	if testing.Verbose() {
		o.Log = logWriter{t}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	rep, err := chaos.Run(ctx, o)
	if err != nil {
		t.Fatal(err)
	}
	t.Log("\n" + rep.Table())
	if rep.Failed() {
		t.Fatal("an invariant broke")
	}
	if rep.Kills != o.Kills || rep.Pauses != o.Pauses || rep.Turns < o.Turns || rep.Updates == 0 || rep.Executions == 0 {
		t.Fatalf("the run did not do what it was asked: %d kills, %d turns, %d updates, %d executions", rep.Kills, rep.Turns, rep.Updates, rep.Executions)
	}
}

// TestEmbedded: about 30 turns on one node with three kills at kill points and
// a pause longer than the node TTL.
func TestEmbedded(t *testing.T) {
	o := chaos.Defaults()
	o.Turns, o.Users, o.Kills, o.Pauses, o.Settle = 30, 3, 3, 1, 40*time.Second
	run(t, o)
}

// TestCluster: three nodes on PostgreSQL and a private Redis, with node kills,
// a node paused longer than its node TTL, a Redis restart and terminated database
// connections.
func TestCluster(t *testing.T) {
	o := chaos.Defaults()
	o.Mode = "cluster"
	o.DatabaseURL = testsvc.PostgresURL(t)
	testsvc.RedisURL(t) // the same availability rule as every Redis test
	path, err := exec.LookPath("redis-server")
	if err != nil {
		if os.Getenv("RTCAGENT_REQUIRE_SERVICES") == "1" {
			t.Fatal("redis-server required")
		}
		t.Skip("no redis-server binary")
	}
	o.RedisServer = path
	o.Turns, o.Users, o.Kills, o.Pauses, o.RedisRestarts, o.PGTerminations, o.Settle = 24, 3, 2, 1, 1, 1, 45*time.Second
	run(t, o)
}
