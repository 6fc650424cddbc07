package bench

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/rtcagent/rtcagent/internal/testkit/testsvc"
)

// A tiny -nodes run: two server child processes on one PostgreSQL schema and
// Redis, browsers spread over them. Each node's model must have timed round
// trips (its browsers' work was done on it), and the table must show them.
func TestClusterTiny(t *testing.T) {
	dbURL, redisURL := testsvc.PostgresURL(t), testsvc.RedisURL(t)
	t.Setenv(childEnv, "1")
	o := Options{Nodes: []int{2}, Sessions: []int{2}, Duration: 2 * time.Second, Warmup: time.Second, Calls: 2, Tool: "ls",
		DBURL: dbURL, RedisURL: redisURL, ServeCmd: []string{os.Args[0]}, Log: testWriter{t}}
	res, err := RunCluster(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Points) != 1 {
		t.Fatalf("%d points", len(res.Points))
	}
	p := res.Points[0]
	if p.Nodes != 2 || len(p.PerNode) != 2 || p.PerNode[0] == 0 || p.PerNode[1] == 0 || p.RoundTrips != p.PerNode[0]+p.PerNode[1] ||
		p.RTT.N != p.RoundTrips || p.RTT.P50 <= 0 || p.PerSec <= 0 || p.ServersCPU <= 0 || p.PG.Statements == 0 {
		t.Fatalf("point %+v", p)
	}
	if p.Turns == 0 || p.Failed != 0 || p.ClientErrors != 0 {
		t.Fatalf("turns %d, failed %d, clients with errors %d", p.Turns, p.Failed, p.ClientErrors)
	}
	tab := res.Table()
	t.Log("\n" + tab)
	if !strings.Contains(tab, "| 2 | 2 | **") {
		t.Errorf("table lacks the 2-node row:\n%s", tab)
	}
}

// -nodes is for PostgreSQL + Redis only: anything else is refused with a
// clear error before a process starts.
func TestClusterNeedsPostgresAndRedis(t *testing.T) {
	o := Options{Nodes: []int{2}, Sessions: []int{1}, Duration: time.Second, Calls: 1, Tool: "ls", ServeCmd: []string{os.Args[0]}}
	_, err := RunCluster(context.Background(), o)
	if err == nil || !strings.Contains(err.Error(), "-nodes needs PostgreSQL and Redis") {
		t.Fatalf("err %v", err)
	}
	var out, errw strings.Builder
	if code := Main([]string{"-nodes", "2"}, &out, &errw); code != 2 || !strings.Contains(errw.String(), "-nodes needs PostgreSQL and Redis") {
		t.Fatalf("exit %d, stderr %q", code, errw.String())
	}
}

type testWriter struct{ t *testing.T }

func (w testWriter) Write(b []byte) (int, error) {
	w.t.Log(strings.TrimRight(string(b), "\n"))
	return len(b), nil
}
