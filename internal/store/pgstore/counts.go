package pgstore

import (
	"context"
	"sync/atomic"

	"github.com/jackc/pgx/v5"

	"github.com/rtcagent/rtcagent/internal/store"
)

// Counts are the statements and transactions this process sent to PostgreSQL,
// over every Store it opened: what one request or round trip costs the database
// is the difference of two Counts divided by the requests in between.
type Counts struct {
	Statements int64 // statements sent, BEGIN and COMMIT included
	Exchanges  int64 // waits for the server: single statements, and pipelines of several
	Writes     int64 // write transactions begun (retries included)
	Reads      int64 // read transactions begun
}

// Sub returns c minus old.
func (c Counts) Sub(old Counts) Counts {
	return Counts{Statements: c.Statements - old.Statements, Exchanges: c.Exchanges - old.Exchanges,
		Writes: c.Writes - old.Writes, Reads: c.Reads - old.Reads}
}

var counts struct{ statements, exchanges, writes, reads atomic.Int64 }

// ReadCounts returns the process's counts so far.
func ReadCounts() Counts {
	return Counts{Statements: counts.statements.Load(), Exchanges: counts.exchanges.Load(),
		Writes: counts.writes.Load(), Reads: counts.reads.Load()}
}

func init() {
	store.ExportCount("pg", "statements_total", "Statements sent to PostgreSQL, BEGIN and COMMIT included.", &counts.statements)
	store.ExportCount("pg", "exchanges_total", "Waits for PostgreSQL: single statements and pipelines of several.", &counts.exchanges)
	store.ExportCount("pg", "write_transactions_total", "Write transactions begun on PostgreSQL, retries included.", &counts.writes)
	store.ExportCount("pg", "read_transactions_total", "Read transactions begun on PostgreSQL.", &counts.reads)
}

// counter is the pgx tracer that counts statements and exchanges.
type counter struct{}

var watcher atomic.Pointer[func(sql string, args []any)]

// WatchStatements calls fn with every statement this process sends to
// PostgreSQL (from any goroutine, as it is sent) until the returned function is
// called: how a test finds the statements of a round trip to EXPLAIN them.
func WatchStatements(fn func(sql string, args []any)) (stop func()) {
	watcher.Store(&fn)
	return func() { watcher.Store(nil) }
}

func watch(sql string, args []any) {
	if fn := watcher.Load(); fn != nil {
		(*fn)(sql, args)
	}
}

func (counter) TraceQueryStart(ctx context.Context, _ *pgx.Conn, d pgx.TraceQueryStartData) context.Context {
	counts.statements.Add(1)
	store.CountStatement(d.SQL)
	watch(d.SQL, d.Args)
	counts.exchanges.Add(1)
	return ctx
}

func (counter) TraceQueryEnd(context.Context, *pgx.Conn, pgx.TraceQueryEndData) {}

func (counter) TraceBatchStart(ctx context.Context, _ *pgx.Conn, _ pgx.TraceBatchStartData) context.Context {
	counts.exchanges.Add(1)
	return ctx
}

func (counter) TraceBatchQuery(_ context.Context, _ *pgx.Conn, d pgx.TraceBatchQueryData) {
	counts.statements.Add(1)
	if sqls, ok := fusedMembers.load(d.SQL); ok {
		for _, m := range sqls.([]string) {
			store.CountStatement(m)
		}
	} else {
		store.CountStatement(d.SQL)
	}
	watch(d.SQL, d.Args)
}

func (counter) TraceBatchEnd(context.Context, *pgx.Conn, pgx.TraceBatchEndData) {}

// Add returns c plus d.
func (c Counts) Add(d Counts) Counts {
	return Counts{Statements: c.Statements + d.Statements, Exchanges: c.Exchanges + d.Exchanges,
		Writes: c.Writes + d.Writes, Reads: c.Reads + d.Reads}
}
