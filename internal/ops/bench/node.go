package bench

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"runtime/pprof"
	"sync"
	"syscall"
	"time"

	"github.com/rtcagent/rtcagent/internal/server"
	"github.com/rtcagent/rtcagent/internal/store"
	"github.com/rtcagent/rtcagent/internal/store/pgstore"
)

// nodeWindow is what a node child reports for one window: the round trips its
// model timed, and the CPU and database work of its process.
type nodeWindow struct {
	Gaps    []time.Duration
	Elapsed time.Duration
	CPU     time.Duration
	PG      pgstore.Counts
	Tables  store.TableCounts
}

// nodeMeter is the window bookkeeping of a node child.
type nodeMeter struct {
	m     *model
	mu    sync.Mutex
	start time.Time
	cpu0  time.Duration
	pg0   pgstore.Counts
	tb0   store.TableCounts
}

// begin starts a window: the round trips timed so far are dropped (the calls
// still waiting for their results stay, so the load goes on).
func (w *nodeMeter) begin() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.m.dropGaps()
	w.start, w.cpu0, w.pg0, w.tb0 = time.Now(), ownCPU(), pgstore.ReadCounts(), store.ReadTableCounts()
}

// end ends the window and returns what happened in it.
func (w *nodeMeter) end() nodeWindow {
	w.mu.Lock()
	defer w.mu.Unlock()
	return nodeWindow{Gaps: w.m.take(), Elapsed: time.Since(w.start), CPU: ownCPU() - w.cpu0, PG: pgstore.ReadCounts().Sub(w.pg0),
		Tables: store.ReadTableCounts().Sub(w.tb0)}
}

// runNode is `rtcagent bench node`: one server with the bench model, as a
// child process of a `-nodes` run. Besides the server's endpoints it answers
// POST /bench/window (a window starts) and POST /bench/result (it ends; the
// answer is a nodeWindow as JSON). It stops on SIGTERM or SIGINT.
func runNode(args []string, stderr io.Writer) error {
	o := Defaults()
	fs := flag.NewFlagSet("bench node", flag.ContinueOnError)
	fs.SetOutput(stderr)
	addr := fs.String("addr", "127.0.0.1:0", "loopback address to listen on")
	prefix := fs.String("redis-prefix", "rtcbench", "Redis key prefix of the run")
	fs.StringVar(&o.DBURL, "database-url", "", "the run's PostgreSQL URL")
	fs.StringVar(&o.RedisURL, "redis-url", "", "the run's Redis URL")
	fs.IntVar(&o.Calls, "calls", o.Calls, "tool calls per turn")
	fs.StringVar(&o.Tool, "tool", o.Tool, "ls or write")
	poll := fs.Duration("poll-interval", 0, "the server's -poll-interval (0: its default)")
	cpuprofile := fs.String("cpuprofile", "", "write a CPU profile of this node's process to this file")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if o.DBURL == "" || o.RedisURL == "" {
		return fmt.Errorf("bench node: -database-url and -redis-url are required")
	}
	if _, ok := benchTools[o.Tool]; !ok {
		return fmt.Errorf("bench node: tool %q: use ls or write", o.Tool)
	}
	if *cpuprofile != "" {
		f, err := os.Create(*cpuprofile)
		if err != nil {
			return err
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return err
		}
		defer pprof.StopCPUProfile()
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	m := newModel(o.Calls, o.Tool)
	cfg := serverConfig(o, "", *prefix)
	if *poll > 0 {
		cfg.PollInterval = *poll
	}
	log := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelError}))
	srv, err := server.New(ctx, cfg, log, server.Options{Model: m})
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		_ = srv.Close(context.Background())
		return err
	}
	meter := &nodeMeter{m: m}
	mux := http.NewServeMux()
	mux.Handle("/", srv.Handler())
	mux.HandleFunc("POST /bench/window", func(w http.ResponseWriter, _ *http.Request) { meter.begin() })
	mux.HandleFunc("POST /bench/result", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(meter.end())
	})
	hs := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = hs.Serve(ln) }()
	<-ctx.Done()
	cctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_ = hs.Close()
	return srv.Close(cctx)
}
