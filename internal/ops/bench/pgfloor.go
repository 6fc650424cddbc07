package bench

import (
	"context"
	"errors"
	"time"

	"github.com/jackc/pgx/v5"
)

// PGFloor is the CPU a PostgreSQL backend spends, on this machine and server,
// on the two things every transition pays whatever its statements: an
// exchange (a statement sent and its answer read) and a write transaction
// committed in one exchange (BEGIN, one row updated, COMMIT, which flushes
// the WAL). A round trip's CPU at this floor is its write transactions at
// CommitCPU and its other exchanges at ExchangeCPU: what no design with as
// many commits and exchanges could go below here; the rest is what its
// statements do.
type PGFloor struct {
	ExchangeCPU, CommitCPU time.Duration // zero when not measured
}

// Of is the floor of a round trip of these write transactions and exchanges.
func (f PGFloor) Of(writes, exchanges float64) time.Duration {
	return time.Duration(writes*float64(f.CommitCPU) + max(exchanges-writes, 0)*float64(f.ExchangeCPU))
}

var errNoBackendCPU = errors.New("the backend's CPU is not readable here")

// measurePGFloor runs exchanges, then one-row write transactions, each kind
// for d on one connection of the run's URL, and divides the backend's CPU by
// their count; zero when the backend's CPU cannot be read (a server on
// another machine). The row is in a table of the run's schema (dropped with it).
func measurePGFloor(ctx context.Context, dbURL string, d time.Duration) (PGFloor, error) {
	conn, err := pgx.Connect(ctx, dbURL)
	if err != nil {
		return PGFloor{}, err
	}
	defer conn.Close(context.Background())
	var pid int
	if err := conn.QueryRow(ctx, `SELECT pg_backend_pid()`).Scan(&pid); err != nil {
		return PGFloor{}, err
	}
	if _, err := conn.Exec(ctx, `CREATE TABLE IF NOT EXISTS bench_floor (id int PRIMARY KEY, v bigint NOT NULL);
		INSERT INTO bench_floor VALUES (1, 0) ON CONFLICT DO NOTHING`); err != nil {
		return PGFloor{}, err
	}
	each := func(f func(i int) error) (time.Duration, error) {
		for i := range 100 { // warm the plans and the pages
			if err := f(i); err != nil {
				return 0, err
			}
		}
		c0, err := procCPU(pid)
		if err != nil {
			return 0, errNoBackendCPU
		}
		n, start := 0, time.Now()
		for ; time.Since(start) < d; n++ {
			if err := f(n); err != nil {
				return 0, err
			}
		}
		c1, err := procCPU(pid)
		if err != nil {
			return 0, err
		}
		return (c1 - c0) / time.Duration(n), nil
	}
	var f PGFloor
	f.ExchangeCPU, err = each(func(int) error { _, err := conn.Exec(ctx, `SELECT 1`); return err })
	if errors.Is(err, errNoBackendCPU) {
		return PGFloor{}, nil // a server on another machine: not measured
	}
	if err != nil {
		return PGFloor{}, err
	}
	f.CommitCPU, err = each(func(i int) error {
		b := &pgx.Batch{}
		b.Queue(`BEGIN`)
		b.Queue(`UPDATE bench_floor SET v = $1 WHERE id = 1`, i)
		b.Queue(`COMMIT`)
		return conn.SendBatch(ctx, b).Close()
	})
	if err != nil {
		return PGFloor{}, err
	}
	return f, nil
}
