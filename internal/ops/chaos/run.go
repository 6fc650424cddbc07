package chaos

import (
	"github.com/rtcagent/rtcagent/internal/testkit/nodeproc"

	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rtcagent/rtcagent/internal/auth"
)

// secret signs the simulated browsers' tokens; the servers listen on loopback only.
const secret = "rtcagent-chaos-secret-0123456789"

// harness is one run: the nodes, the users and the counters.
type harness struct {
	o          Options
	ctx        context.Context // the run's, for what users do after an answer
	logf       func(format string, args ...any)
	ver        *auth.Verifier
	nodes      []*nodeproc.Proc
	redis      *redisProc
	pgURL      string // base URL, for terminating the nodes' connections
	dropSchema func()
	app        string       // application_name of the nodes' connections
	mcp        *http.Server // the MCP server whose tools the nodes run
	users      []*user
	rng        *rng
	report     Report

	started atomic.Int64 // turns started
	mu      sync.Mutex   // guards the counters below
	// checking: the turns settled and the checks began; users start nothing more
	checking bool
	// triggers of the kill points, signalled without blocking
	streaming, executing, submitting chan struct{}
	extra                            sync.WaitGroup // duplicate submissions in flight
}

// Run executes one chaos run and returns its report; err is a failure to run
// (a server that does not start), not a broken invariant.
func Run(ctx context.Context, o Options) (*Report, error) {
	if err := o.validate(); err != nil {
		return nil, err
	}
	logw := o.Log
	if logw == nil {
		logw = io.Discard
	}
	h := &harness{o: o, ctx: ctx, rng: newRNG(o.Seed, 0),
		streaming: make(chan struct{}, 1), executing: make(chan struct{}, 1), submitting: make(chan struct{}, 1)}
	h.logf = func(format string, args ...any) { fmt.Fprintf(logw, "chaos: "+format+"\n", args...) }
	h.report.Mode, h.report.Seed, h.report.Users = o.Mode, o.Seed, o.Users
	var err error
	if h.ver, err = auth.NewVerifier([]byte(secret)); err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "rtcagent-chaos-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	defer h.shutdown()
	if err := h.startNodes(ctx, dir, logw); err != nil {
		return nil, err
	}
	h.report.Nodes = len(h.nodes)
	for i := range o.Users {
		u, err := h.newUser(ctx, i)
		if err != nil {
			return nil, err
		}
		h.users = append(h.users, u)
	}
	h.logf("%s: %d node(s), %d users, %d turns, seed %d", o.Mode, len(h.nodes), o.Users, o.Turns, o.Seed)
	start := time.Now()
	if err := h.drive(ctx); err != nil {
		return nil, err
	}
	h.report.Duration = time.Since(start)
	h.logf("faults over after %s; settling", h.report.Duration.Round(time.Second))
	if err := h.check(ctx); err != nil {
		return nil, err
	}
	return &h.report, nil
}

func (h *harness) shutdown() {
	for _, u := range h.users {
		u.close()
	}
	for _, n := range h.nodes {
		n.Kill()
	}
	if h.redis != nil {
		h.redis.stop()
	}
	if h.dropSchema != nil {
		h.dropSchema()
	}
	if h.mcp != nil {
		_ = h.mcp.Close()
	}
}

// serverArgs are the flags every node shares. Leases are long, as in
// production: a dead or stalled node's sessions are taken over when its
// liveness record lapses (1 s).
func (h *harness) serverArgs(addr, scriptFile, mcpFile string) []string {
	return []string{"serve", "-addr", addr, "-token-secret", secret, "-model-provider", "scripted", "-script", scriptFile,
		"-poll-interval", "100ms", "-lease-ttl", "30s", "-node-ttl", "1s", "-log-level", "error", "-message-rate", "-1",
		"-exec-timeout", h.o.ExecTimeout.String(), "-mcp-config", mcpFile}
}
