package bench

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"sync"
	"time"

	"github.com/rtcagent/rtcagent/internal/protocol"
	"github.com/rtcagent/rtcagent/internal/store"
	"github.com/rtcagent/rtcagent/internal/store/pgstore"
	"github.com/rtcagent/rtcagent/internal/store/sqlitestore"
	"github.com/rtcagent/rtcagent/internal/testkit/simclient"
)

// dialParallel bounds concurrent WebSocket handshakes, so connecting 1000s of
// clients does not look like a connection storm to the kernel's accept queue.
const dialParallel = 64

// dialAll connects n clients for users <prefix>-<i>; on any failure it closes
// those that connected and returns the errors.
func dialAll(ctx context.Context, url string, ver tokenIssuer, prefix string, n int, mk func(i int) simclient.Config) ([]*simclient.Client, error) {
	tokens := make([]string, n)
	for i := range n {
		tok, _, err := ver.Issue(fmt.Sprintf("%s-%d", prefix, i), 24*time.Hour)
		if err != nil {
			return nil, err
		}
		tokens[i] = tok
	}
	return dialTokens(ctx, []string{url}, tokens, mk)
}

// dialTokens connects one client per token, client i to urls[i mod len(urls)].
func dialTokens(ctx context.Context, urls []string, tokens []string, mk func(i int) simclient.Config) ([]*simclient.Client, error) {
	n := len(tokens)
	clients := make([]*simclient.Client, n)
	errs := make([]error, n)
	sem := make(chan struct{}, dialParallel)
	var wg sync.WaitGroup
	for i := range n {
		sem <- struct{}{}
		wg.Add(1)
		go func() {
			defer func() { <-sem; wg.Done() }()
			cfg := mk(i)
			cfg.URL, cfg.Token, cfg.DeviceID = urls[i%len(urls)], tokens[i], "bench"
			dctx, cancel := context.WithTimeout(ctx, 30*time.Second)
			defer cancel()
			clients[i], errs[i] = simclient.Dial(dctx, cfg)
		}()
	}
	wg.Wait()
	err := errors.Join(errs...)
	if err != nil {
		closeAll(clients)
	}
	return clients, err
}

type tokenIssuer interface {
	Issue(user string, ttl time.Duration) (string, time.Time, error)
}

func closeAll(cs []*simclient.Client) {
	for _, c := range cs {
		if c != nil {
			c.Close()
		}
	}
}

// ok answers every RTC at once: the tool costs nothing, so the round trip is the
// server's (and the loopback transport's) alone.
func ok(context.Context, protocol.RTC) simclient.Result {
	return simclient.Result{OK: true, Output: "a.txt"}
}

// runPoint runs n sessions for warmup + d: each client sends a message (a new
// session per turn, so transcripts stay short and the round trip, not transcript
// growth, is measured), waits for the turn to end, and repeats. The load runs
// without a break; what happened during the warm-up (connection setup, first
// statements, the first turn of every client) is then discarded, and only round
// trips and turns inside the window d count. Turns still running at its end are
// abandoned with their clients.
func runPoint(ctx context.Context, o Options, srv *running, m *model, prefix string, n int, warmup, d time.Duration) (Point, error) {
	m.take()
	var start time.Time
	var pg0 pgstore.Counts
	var sq0 sqlitestore.Counts
	var tb0 store.TableCounts
	var cpu0 time.Duration
	var own0 ownCounts
	var wt *windowTrace
	var wtErr error
	defer func() {
		if wt != nil {
			wt.close()
		}
	}()
	var backends *pgBackends
	if o.DBURL != "" {
		u, _ := url.Parse(o.DBURL)
		backends = &pgBackends{dbURL: o.DBURL, app: u.Query().Get("application_name")}
	}
	window := func() {
		if backends != nil {
			backends.begin(ctx)
		}
		m.dropGaps()
		start, pg0, sq0, tb0, cpu0, own0 = time.Now(), pgstore.ReadCounts(), sqlitestore.ReadCounts(), store.ReadTableCounts(), ownCPU(), readOwn()
		if o.Handoffs {
			wt, wtErr = startWindowTrace()
		}
	}
	var l load
	if o.clientsApart() {
		var err error
		if l, err = clientsChild(ctx, o, srv, prefix, n, warmup, d, window); err != nil {
			return Point{}, err
		}
	} else {
		seen := &clientTimes{}
		clients, err := dialAll(ctx, srv.url, srv.ver, prefix, n, seen.config)
		if err != nil {
			return Point{}, err
		}
		defer closeAll(clients)
		m.take()
		seen.forget()
		l = driveLoad(ctx, clients, prefix, seen, warmup, d, window)
	}
	elapsed, pg, sq, cpu := time.Since(start), pgstore.ReadCounts().Sub(pg0), sqlitestore.ReadCounts().Sub(sq0), ownCPU()-cpu0
	if wt != nil {
		wt.stop()
	}
	own := readOwn().sub(own0)
	tables := store.ReadTableCounts().Sub(tb0)
	gaps, ids := m.takeCalls()
	var handoffs *Handoffs
	if wt != nil && len(gaps) > 0 {
		handoffs, wtErr = wt.count(len(gaps))
	}
	if wtErr != nil {
		return Point{}, fmt.Errorf("hand-offs: %w", wtErr)
	}
	pgCPU := -1.0
	var rowsRead map[string]int64
	var wal *PGWAL
	if backends != nil {
		if d, rows, w, ok := backends.since(ctx); ok {
			pgCPU, rowsRead, wal = d.Seconds()/elapsed.Seconds(), rows, w
		}
	}
	return Point{PGCPU: pgCPU, PGRowsRead: rowsRead, PGWAL: wal, Sessions: n, RoundTrips: len(gaps), Turns: l.Turns, Failed: l.Failed, ClientErrors: l.ClientErrors,
		PerSec: float64(len(gaps)) / elapsed.Seconds(), RTT: pcts(gaps), ServerRTT: pcts(serverShare(gaps, ids, l.Held)), Live: pcts(l.Live), PG: pg, SQLite: sq, Tables: tables,
		ServerCPU: cpu.Seconds() / elapsed.Seconds(), ClientsCPU: l.CPU.Seconds() / elapsed.Seconds(),
		Server: own, Handoffs: handoffs,
		ClientsApart: o.clientsApart()}, nil
}
