package bench

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/rtcagent/rtcagent/internal/testkit/testsvc"
)

// The PostgreSQL floor: a backend's CPU for an exchange and for a one-row
// write transaction, read from /proc. A commit flushes the WAL, so it costs
// more than a bare exchange; and its rows reach the server's WAL counts.
func TestPGFloor(t *testing.T) {
	name := fmt.Sprintf("rtcbenchfloor%d", time.Now().UnixNano())
	url, drop, err := freshSchema(testsvc.PostgresURL(t), name)
	if err != nil {
		t.Fatal(err)
	}
	defer drop()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, "CREATE SCHEMA "+name); err != nil { // a store creates it in a run
		t.Fatal(err)
	}
	before := readWAL(ctx, conn)
	f, err := measurePGFloor(ctx, url, 300*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	if f.ExchangeCPU <= 0 || f.CommitCPU <= f.ExchangeCPU {
		t.Fatalf("floor %+v: a commit must cost more than an exchange, both more than nothing", f)
	}
	if got := f.Of(2, 6); got != 2*f.CommitCPU+4*f.ExchangeCPU {
		t.Fatalf("floor of 2 commits and 6 exchanges %v", got)
	}
	if before == nil {
		t.Skip("this PostgreSQL has no pg_stat_wal")
	}
	// The floor's backend ended: its WAL reaches the counts soon after.
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		after := readWAL(ctx, conn)
		if after.Records > before.Records && after.Bytes > before.Bytes {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("WAL counts did not move: %+v → %+v", before, after)
		}
	}
}
