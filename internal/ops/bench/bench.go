package bench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/trace"
	"time"

	"github.com/rtcagent/rtcagent/internal/auth"
	"github.com/rtcagent/rtcagent/internal/config"
	"github.com/rtcagent/rtcagent/internal/server"
)

// secret signs the connection tokens of the simulated browsers; the server only
// ever listens on loopback.
const secret = "rtcagent-bench-secret-0123456789"

// Options configure one run.
type Options struct {
	Sessions []int         // concurrency points; one client and one session at a time each
	Duration time.Duration // measured window per point
	Calls    int           // tool calls per turn
	// Tool is the tool every call names: "ls" (read-only: the browser submits
	// the result at once) or "write" (with effects: the browser reports
	// executing first, one RPC and one server write more per call).
	Tool     string
	Idle     int    // idle connections for the memory row; 0 skips it
	DBURL    string // PostgreSQL (with RedisURL: the scale-out backend); empty = embedded
	RedisURL string
	// ServeCmd, when set, starts the idle-memory server as a child process
	// (ServeCmd + "serve" flags) so its RSS is the server's alone; the rtcagent
	// command passes its own executable. Empty: measured in process (see idle.go).
	ServeCmd []string
	FloorN   int // samples of each floor measurement
	// Warmup is the load run before each point's window, not measured.
	Warmup time.Duration
	// History are the conversation sizes (messages) of the transcript-growth
	// row; empty skips it.
	History []int
	Log     io.Writer // progress lines; nil = none
	// ClientsProcess runs each point's simulated browsers in a child process
	// (ServeCmd + "bench clients"), so this process's CPU is the server's.
	ClientsProcess bool
	// Nodes, when set, runs the load against that many server child
	// processes (`rtcagent bench node`, one count after another) on one
	// PostgreSQL schema and Redis instead of the in-process server, with
	// Sessions browsers per node; it needs DBURL, RedisURL and ServeCmd, and
	// only the cluster table is measured.
	Nodes []int
	// NodePoll is the nodes' -poll-interval (0: the server's default);
	// NodeProfile, when set, is where the first node of each count writes a
	// CPU profile of its process (suffixed .<k>nodes).
	NodePoll    time.Duration
	NodeProfile string
	// Handoffs traces each point's window with the Go runtime's tracer and
	// counts its hand-offs between goroutines (Point.Handoffs). The tracer
	// slows the run and has a goroutine of its own: a traced run's times,
	// goroutines started and thread sleeps are not comparable.
	Handoffs bool
}

// Defaults returns the configuration of `rtcagent bench` without flags.
func Defaults() Options {
	return Options{Sessions: []int{1, 100, 1000}, Duration: 20 * time.Second, Calls: 10, Tool: "ls", Idle: 10000, FloorN: 2000,
		Warmup: time.Second, History: []int{10, 100, 500}}
}

// Backend names the store and broker the options select.
func (o Options) Backend() string {
	if o.DBURL != "" {
		if o.RedisURL != "" {
			return "PostgreSQL + Redis"
		}
		return "PostgreSQL + in-memory broker"
	}
	return "embedded (SQLite, in-memory broker)"
}

// Run measures every row and returns the result; Table renders it.
func Run(ctx context.Context, o Options) (*Result, error) {
	if o.Calls <= 0 || o.Duration <= 0 || len(o.Sessions) == 0 {
		return nil, errors.New("bench: sessions, duration and calls must be positive")
	}
	if _, ok := benchTools[o.Tool]; !ok {
		return nil, fmt.Errorf("bench: tool %q: use ls or write", o.Tool)
	}
	for _, n := range o.History {
		if n <= 0 {
			return nil, errors.New("bench: history sizes must be positive")
		}
	}
	if o.FloorN <= 0 {
		o.FloorN = 1000
	}
	if o.Handoffs && trace.IsEnabled() {
		return nil, errors.New("bench: hand-offs need the runtime's tracer, which another caller runs")
	}
	logf := func(format string, args ...any) {
		if o.Log != nil {
			fmt.Fprintf(o.Log, "bench: "+format+"\n", args...)
		}
	}
	res := &Result{Backend: o.Backend(), Calls: o.Calls, Tool: o.Tool, Duration: o.Duration}
	tmp, err := os.MkdirTemp("", "rtcagent-bench-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	prefix := fmt.Sprintf("rtcbench%d", time.Now().UnixNano())
	if o.DBURL != "" {
		var drop func()
		if o.DBURL, drop, err = freshSchema(o.DBURL, prefix); err != nil {
			return nil, fmt.Errorf("database url: %w", err)
		}
		defer drop()
		if o.DBURL, err = withAppName(o.DBURL, prefix); err != nil {
			return nil, fmt.Errorf("database url: %w", err)
		}
	}

	m := newModel(o.Calls, o.Tool)
	srv, err := startServer(ctx, o, m, filepath.Join(tmp, "load.db"), prefix)
	if err != nil {
		return nil, err
	}
	for i, n := range o.Sessions {
		logf("%d sessions for %s", n, o.Duration)
		p, err := runPoint(ctx, o, srv, m, fmt.Sprintf("p%d", i), n, o.Warmup, o.Duration)
		if err != nil {
			srv.close()
			return nil, fmt.Errorf("%d sessions: %w", n, err)
		}
		res.Points = append(res.Points, p)
	}
	// RPCs the abandoned clients sent at the end of the last window may still be
	// in flight; let them finish before the store closes under them.
	time.Sleep(time.Second)
	srv.close()

	logf("floor: %d Centrifuge publishes and %d store commits", o.FloorN, o.FloorN)
	if res.Floor, err = measureFloor(ctx, o, filepath.Join(tmp, "floor.db")); err != nil {
		return nil, fmt.Errorf("floor: %w", err)
	}
	if len(o.History) > 0 {
		if res.History, err = measureHistory(ctx, o, tmp, prefix+"hist", logf); err != nil {
			return nil, fmt.Errorf("history: %w", err)
		}
	}
	if o.Idle > 0 {
		logf("%d idle connections", o.Idle)
		if res.Idle, err = measureIdle(ctx, o, tmp, prefix+"idle"); err != nil {
			return nil, fmt.Errorf("idle: %w", err)
		}
	}
	return res, nil
}

// running is an in-process server on a loopback listener.
type running struct {
	srv  *server.Server
	http *http.Server
	url  string
	ver  *auth.Verifier
}

func serverConfig(o Options, dataFile, prefix string) config.Config {
	cfg := config.Default()
	cfg.DataFile = dataFile
	cfg.Secret = secret
	cfg.Provider = "scripted"
	cfg.MsgRate = -1 // the load is many messages per user and minute
	// A turn of -calls calls, one per step, then the answer.
	cfg.StepLimit = max(cfg.StepLimit, o.Calls+1)
	cfg.DBURL, cfg.RedisURL, cfg.RedisPfx = o.DBURL, o.RedisURL, prefix
	return cfg
}

func startServer(ctx context.Context, o Options, m *model, dataFile, prefix string) (*running, error) {
	cfg := serverConfig(o, dataFile, prefix)
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelError}))
	srv, err := server.New(ctx, cfg, log, server.Options{Model: m})
	if err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		_ = srv.Close(ctx)
		return nil, err
	}
	hs := &http.Server{Handler: srv.Handler(), ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = hs.Serve(ln) }()
	return &running{srv: srv, http: hs, url: "ws://" + ln.Addr().String() + "/connection/websocket", ver: srv.Verifier()}, nil
}

func (r *running) close() {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_ = r.http.Close() // hijacked WebSockets are closed by the node's shutdown below
	_ = r.srv.Close(ctx)
}

// clientsApart reports whether the simulated browsers run in a child
// process (ClientsProcess, with a binary to run).
func (o Options) clientsApart() bool { return o.ClientsProcess && len(o.ServeCmd) > 0 }

// benchChild is `bench <sub>` of ServeCmd, to run as a child process that
// shares this one's standard error.
func (o Options) benchChild(ctx context.Context, sub string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, o.ServeCmd[0], append(append([]string(nil), o.ServeCmd[1:]...), "bench", sub)...)
	cmd.Stderr = os.Stderr
	return cmd
}
