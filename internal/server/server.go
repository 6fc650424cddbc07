package server

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/rtcagent/rtcagent/internal/agui"
	"github.com/rtcagent/rtcagent/internal/api"
	"github.com/rtcagent/rtcagent/internal/auth"
	"github.com/rtcagent/rtcagent/internal/config"
	"github.com/rtcagent/rtcagent/internal/lifecycle"
	"github.com/rtcagent/rtcagent/internal/llm"
	"github.com/rtcagent/rtcagent/internal/mcptools"
	"github.com/rtcagent/rtcagent/internal/protocol"
	"github.com/rtcagent/rtcagent/internal/realtime"
	"github.com/rtcagent/rtcagent/internal/session"
	"github.com/rtcagent/rtcagent/internal/store"
	"github.com/rtcagent/rtcagent/internal/telemetry"
	"github.com/rtcagent/rtcagent/internal/tools"
	"github.com/rtcagent/rtcagent/web"
)

// Server is a running RTC Agent: store, realtime node, session runner and HTTP mux.
type Server struct {
	cfg      config.Config
	log      *slog.Logger
	store    store.Store
	node     *realtime.Node
	runner   *session.Runner
	api      *api.API
	verifier *auth.Verifier
	mux      *http.ServeMux
	cancel   context.CancelFunc
	wg       sync.WaitGroup
	// closeRedis closes the Live buffer's Redis client, if any.
	closeRedis func() error
	tracer     *telemetry.Tracer
	observer   *telemetry.Observer
	model      string            // the model's name, for the startup log
	mcp        *mcptools.Manager // nil without -mcp-config
	ready      bool
	mu         sync.Mutex
}

// Options override parts for tests and embedding; zero values use the config.
type Options struct {
	Model llm.Model
	// VerifyTranscripts makes every model step check its cached transcript
	// against the store (tests; see session.Config).
	VerifyTranscripts bool
	// TraceBatchTimeout is the longest a finished span waits to be sent
	// (default 5 s; tests shorten it).
	TraceBatchTimeout time.Duration
}

// New builds a server from the configuration and starts its background parts
// (relay, session runner). Serve it with Handler or ListenAndServe; stop it with
// Close.
func New(ctx context.Context, cfg config.Config, log *slog.Logger, opt Options) (*Server, error) {
	secret := []byte(cfg.Secret)
	if len(secret) == 0 && cfg.Dev {
		var err error
		if secret, err = devSecret(cfg); err != nil {
			return nil, err
		}
	}
	verifier, err := auth.New(secret, auth.Options{Audience: cfg.TokenAud, Issuer: cfg.TokenIss})
	if err != nil {
		return nil, err
	}
	model := opt.Model
	if model == nil {
		if model, err = newModel(cfg); err != nil {
			return nil, fmt.Errorf("model: %w", err)
		}
	}
	var mcpCfg *mcptools.Config
	if cfg.MCPConfig != "" {
		if mcpCfg, err = mcptools.LoadConfig(cfg.MCPConfig); err != nil {
			return nil, err
		}
	}
	st, err := openStore(ctx, cfg, log, true)
	if err != nil {
		return nil, err
	}
	partials, closeRedis, err := openPartials(cfg)
	if err != nil {
		st.Close()
		return nil, err
	}
	lim := protocol.Limits{ExecTimeout: cfg.ExecTimeout, HumanTimeout: cfg.HumanTimeout, StepLimit: cfg.StepLimit,
		MessagesPerMinute: cfg.MsgRate, MessageBurst: cfg.MsgBurst}.WithDefaults()
	s := &Server{cfg: cfg, log: log, store: st, verifier: verifier, closeRedis: closeRedis}
	system, prices, err := promptAndPrices(cfg)
	if err != nil {
		st.Close()
		return nil, err
	}
	s.tracer, err = telemetry.New(ctx, telemetry.Config{Endpoint: cfg.OTLPEndpoint, BatchTimeout: opt.TraceBatchTimeout})
	if err != nil {
		st.Close()
		return nil, fmt.Errorf("tracing: %w", err)
	}
	var serverTools tools.ServerTools
	if mcpCfg != nil {
		s.mcp = startMCP(ctx, mcpCfg, lim, log)
		serverTools = s.mcp
	}
	compaction := session.Compaction{Threshold: int64(cfg.CompactAt), Keep: int64(cfg.CompactKeep)}
	s.runner = session.New(session.Config{Store: st, Model: model, Logger: log, Limits: lim, System: system,
		Compaction: compaction, Prices: prices, Tracer: s.tracer,
		LeaseTTL: cfg.LeaseTTL, NodeTTL: cfg.NodeTTL, PollInterval: cfg.PollInterval, Concurrency: cfg.Active, Partials: partials, ModelRetries: retries(cfg.Retries), RetryBackoff: cfg.RetryWait,
		VerifyTranscripts: opt.VerifyTranscripts, ServerTools: serverTools,
		// With PostgreSQL each statement is a network exchange: read the step's
		// input in the transaction that takes the work. SQLite's single writer
		// is better left to writes; its reads run beside it.
		InputWithItem: cfg.DBURL != "",
		SoleWriter:    cfg.DBURL == "",
		Live:          nodeLive{s}})
	s.api = api.New(st, clusterRunner{s}, lim, log)
	if s.mcp != nil {
		s.api.ServeViews(s.mcp, s.tracer)
	}
	s.node, err = realtime.New(ctx, realtime.Config{Store: st, API: s.api, Verifier: verifier, Logger: log, AllowedOrigins: cfg.AllowedOrigins(),
		MaxRequestBytes: lim.RequestBytes, PageBytes: lim.PageBytes, RedisURL: cfg.RedisURL, RedisPrefix: cfg.RedisPfx, OnCancelTurn: s.runner.CancelTurn})
	if err != nil {
		s.closeMCP()
		st.Close()
		return nil, err
	}
	s.observer = telemetry.NewObserver(st, s.tracer, log)
	st.SetCommitHook(func(c store.Commit) {
		s.node.OnCommit(c)
		s.observer.OnCommit(c)
		s.cancelEndedTasks(c)
		s.runner.Committed(c.Updates)
		if len(c.Wake) > 0 {
			s.runner.Wake(c.Wake)
		}
	})
	if err := s.node.Run(); err != nil {
		s.closeMCP()
		st.Close()
		return nil, err
	}
	rctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	s.cancel = cancel
	s.wg.Add(2)
	go func() { defer s.wg.Done(); s.runner.Run(rctx) }()
	go func() { defer s.wg.Done(); s.prune(rctx) }()
	if l, ok := st.(listener); ok { // work other nodes commit wakes this one's runner
		s.wg.Add(1)
		go func() { defer s.wg.Done(); l.Listen(rctx, s.runner.Wake) }()
	}
	s.routes()
	s.mu.Lock()
	s.ready = true
	s.mu.Unlock()
	s.model = model.Name()
	return s, nil
}

// listener is a store that hears of the inbox work other nodes commit
// (PostgreSQL's notifications).
type listener interface {
	Listen(ctx context.Context, wake func(sessionIDs []string))
}

// retries maps the configured count to the runner's convention (negative = none).
func retries(n int) int {
	if n <= 0 {
		return -1
	}
	return n
}

// clusterRunner gives the API the runner's partial text and adoption, and sends
// stop hints to every node, since any node may be streaming the turn.
type clusterRunner struct{ s *Server }

func (c clusterRunner) CancelTurn(turnID string)              { c.s.node.CancelTurn(turnID) }
func (c clusterRunner) Adopt(tx store.Tx) (func(bool), error) { return c.s.runner.Adopt(tx) }
func (c clusterRunner) SettlePartials(ids []string)           { c.s.runner.SettlePartials(ids) }
func (c clusterRunner) LiveText(ctx context.Context, sessionID string) lifecycle.Live {
	return c.s.runner.LiveText(ctx, sessionID)
}
func (c clusterRunner) Partial(messageID string) (string, int64, bool) {
	return c.s.runner.Partial(messageID)
}

// nodeLive publishes the runner's Live deltas through the node, made after
// the runner.
type nodeLive struct{ s *Server }

func (l nodeLive) PublishDelta(u string, d protocol.Delta) error { return l.s.node.PublishDelta(u, d) }

func (l nodeLive) PublishCallDelta(u string, d protocol.CallDelta) error {
	return l.s.node.PublishCallDelta(u, d)
}

func (s *Server) routes() {
	m := http.NewServeMux()
	m.Handle("/connection/websocket", s.node.WebSocketHandler())
	m.Handle("/api/v1/rpc/", s.api.HTTPHandler(s.verifier))
	m.Handle("/ag-ui", agui.Handler(agui.Config{API: s.api, Store: s.store, Node: s.node, Verifier: s.verifier,
		AllowedOrigins: s.cfg.AllowedOrigins(), Logger: s.log.With("component", "ag-ui")}))
	if s.mcp != nil {
		m.Handle(mcptools.AppsPrefix, s.mcp.AppHandler())
	}
	m.HandleFunc("/healthz", func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("ok\n")) })
	m.HandleFunc("/readyz", s.readyz)
	m.Handle("/metrics", promhttp.Handler())
	if s.cfg.Dev {
		m.HandleFunc("/api/dev/token", s.devToken)
	}
	m.Handle("/", web.Handler())
	s.mux = m
}

// Handler is the HTTP handler of all endpoints.
func (s *Server) Handler() http.Handler { return s.mux }

// Verifier gives tests and tools the token verifier/issuer.
func (s *Server) Verifier() *auth.Verifier { return s.verifier }

func (s *Server) readyz(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	ready := s.ready
	s.mu.Unlock()
	err := s.store.Read(r.Context(), func(tx store.Tx) error { _, err := tx.StreamGet("readyz"); return err })
	if !ready || err != nil {
		http.Error(w, "not ready", http.StatusServiceUnavailable)
		return
	}
	_, _ = w.Write([]byte("ready\n"))
}

// devSecret is the token secret of development mode when none is configured: random,
// kept in a file beside the data file so tokens survive a restart.
func devSecret(cfg config.Config) ([]byte, error) {
	path := filepath.Join(filepath.Dir(filepath.Clean(cfg.DataFile)), ".rtcagent-dev-secret")
	if b, err := os.ReadFile(path); err == nil && len(b) >= 32 {
		return b, nil
	}
	b := make([]byte, 32)
	_, _ = rand.Read(b)
	b = []byte(hex.EncodeToString(b))
	if err := os.WriteFile(path, b, 0o600); err != nil {
		return nil, fmt.Errorf("write development token secret: %w", err)
	}
	return b, nil
}

// devToken issues a token for any user: development mode only. Any origin may ask,
// so a host page served elsewhere can embed the demo.
func (s *Server) devToken(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Access-Control-Allow-Origin", "*")
	w.Header().Set("Access-Control-Allow-Headers", "Content-Type")
	if r.Method == http.MethodOptions {
		w.WriteHeader(http.StatusNoContent)
		return
	}
	var req struct {
		UserID string   `json:"user_id"`
		Modes  []string `json:"modes"` // the work modes the token allows (a site's own token service decides this)
	}
	if r.Method != http.MethodPost || json.NewDecoder(http.MaxBytesReader(w, r.Body, 4096)).Decode(&req) != nil || req.UserID == "" || len(req.UserID) > 128 ||
		(req.Modes != nil && auth.CheckModes(req.Modes) != nil) {
		http.Error(w, `{"error":{"code":"invalid_argument","message":"POST {\"user_id\": \"...\", \"modes\": [\"manual\", ...] (optional)}"}}`, http.StatusBadRequest)
		return
	}
	tok, exp, err := s.verifier.IssueWithModes(req.UserID, time.Hour, req.Modes)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{"token": tok, "expires_at": exp})
}

// prune drops Topic history older than the retention, keeping the newest 1000
// updates of each user, and audit records of calls that ended before the audit
// retention (when one is set).
func (s *Server) prune(ctx context.Context) {
	t := time.NewTicker(10 * time.Minute)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		err := s.store.Write(ctx, func(tx store.Tx) error {
			_, err := tx.UpdatePrune(tx.Now().Add(-s.cfg.Retention), 1000)
			if err == nil && s.cfg.AuditRetention > 0 {
				_, err = tx.AuditPrune(tx.Now().Add(-s.cfg.AuditRetention))
			}
			return err
		})
		if err != nil && ctx.Err() == nil {
			s.log.Warn("prune updates", "err", err)
		}
	}
}

// Close stops the runner (drains in progress end; their sessions resume on the next
// start), the realtime node and the store.
func (s *Server) Close(ctx context.Context) error {
	s.mu.Lock()
	s.ready = false
	s.mu.Unlock()
	s.cancel()
	s.wg.Wait()
	s.closeMCP()
	err := s.node.Shutdown(ctx)
	s.observer.Close() // the last ended calls and turns are written
	return errors.Join(err, s.tracer.Shutdown(ctx), s.closeRedis(), s.store.Close())
}

// ListenAndServe serves on the configured address until ctx ends, then shuts down
// gracefully.
//
// The ready line names the address to open in a browser: localhost for a
// server listening on every interface.
func (s *Server) ListenAndServe(ctx context.Context) error {
	ln, err := net.Listen("tcp", s.cfg.Addr)
	if err != nil {
		return err
	}
	hs := &http.Server{Handler: s.mux, ReadHeaderTimeout: 10 * time.Second}
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	// Logged once the port is bound: connections are accepted from now on.
	store, broker := describeBackends(s.cfg)
	s.log.Info("rtcagent ready", "addr", ln.Addr().String(), "url", openURL(ln.Addr()), "store", store, "broker", broker, "model", s.model, "dev", s.cfg.Dev)
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), s.cfg.ShutdownWait)
	defer cancel()
	err = hs.Shutdown(sctx)
	return errors.Join(err, s.Close(sctx))
}

// openURL is the address a person opens to reach a listener.
func openURL(a net.Addr) string {
	tcp, ok := a.(*net.TCPAddr)
	if !ok {
		return "http://" + a.String()
	}
	host := tcp.IP.String()
	if tcp.IP.IsUnspecified() || tcp.IP.IsLoopback() {
		host = "localhost"
	}
	return "http://" + net.JoinHostPort(host, strconv.Itoa(tcp.Port))
}
