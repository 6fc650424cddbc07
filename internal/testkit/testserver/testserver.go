package testserver

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rtcagent/rtcagent/internal/config"
	"github.com/rtcagent/rtcagent/internal/llm"
	"github.com/rtcagent/rtcagent/internal/server"
)

// Secret signs the tokens of test servers.
const Secret = "rtcagent-test-secret-0123456789"

// Config returns the configuration test servers start from, with its data file
// in t's temporary directory.
func Config(t testing.TB) config.Config {
	cfg := config.Default()
	cfg.DataFile = filepath.Join(t.TempDir(), "rtcagent.db")
	cfg.Secret = Secret
	cfg.Provider = "scripted"
	cfg.PollInterval = 100 * time.Millisecond
	cfg.LeaseTTL = 3 * time.Second
	cfg.MsgRate = -1 // tests send fast; a rate limit test sets its own
	return cfg
}

// Options change how Start runs a server; the zero value is the shared default.
type Options struct {
	// Config changes the configuration of Config(t) before the server starts.
	Config func(*config.Config)
	// Logs receives the server's warnings and errors; nil is os.Stderr.
	Logs io.Writer
	// Server is passed to server.New; Start sets its Model.
	Server server.Options
}

// Server is a server running in this process.
type Server struct {
	Srv    *server.Server
	HTTP   *httptest.Server
	Config config.Config
	stop   sync.Once
}

// Start starts a server with the shared configuration and model.
func Start(t testing.TB, model llm.Model, o Options) *Server {
	t.Helper()
	cfg := Config(t)
	if o.Config != nil {
		o.Config(&cfg)
	}
	o.Server.Model = model
	return Run(t, cfg, o.Logs, o.Server)
}

// Run starts a server with cfg as it is (a second server on the data file of a
// first one, for a restart); logs as in Options.
func Run(t testing.TB, cfg config.Config, logs io.Writer, opts server.Options) *Server {
	t.Helper()
	if logs == nil {
		logs = os.Stderr
	}
	log := slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelWarn}))
	srv, err := server.New(context.Background(), cfg, log, opts)
	if err != nil {
		t.Fatal(err)
	}
	s := &Server{Srv: srv, HTTP: httptest.NewServer(srv.Handler()), Config: cfg}
	t.Cleanup(func() { s.Stop(t) })
	return s
}

// Stop closes the connections and the server; later calls do nothing.
func (s *Server) Stop(t testing.TB) {
	s.stop.Do(func() {
		s.HTTP.CloseClientConnections()
		s.HTTP.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := s.Srv.Close(ctx); err != nil {
			t.Log("close:", err)
		}
	})
}

// WSURL is the server's Centrifuge WebSocket endpoint.
func (s *Server) WSURL() string {
	return "ws" + strings.TrimPrefix(s.HTTP.URL, "http") + "/connection/websocket"
}

// Token issues a connection token for user, valid for ttl.
func (s *Server) Token(t testing.TB, user string, ttl time.Duration) string {
	t.Helper()
	tok, _, err := s.Srv.Verifier().Issue(user, ttl)
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

// RPC calls a method over HTTP as device dev of user and decodes the result
// into out (when not nil); any answer but 200 fails the test. It is a test's
// own view of the server, independent of the client under test.
func (s *Server) RPC(t testing.TB, user, dev, method string, params, out any) {
	t.Helper()
	body, err := json.Marshal(params)
	if err != nil {
		t.Fatal(err)
	}
	req, _ := http.NewRequest(http.MethodPost, s.HTTP.URL+"/api/v1/rpc/"+method, bytes.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+s.Token(t, user, time.Hour))
	req.Header.Set("X-Device-Id", dev)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(resp.Body)
		t.Fatalf("%s: %d %s", method, resp.StatusCode, b)
	}
	if out != nil {
		if err := json.NewDecoder(resp.Body).Decode(out); err != nil {
			t.Fatal(err)
		}
	}
}
