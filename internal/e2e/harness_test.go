package e2e

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rtcagent/rtcagent/internal/auth"
	"github.com/rtcagent/rtcagent/internal/config"
	"github.com/rtcagent/rtcagent/internal/llm"
	"github.com/rtcagent/rtcagent/internal/llm/scripted"
	"github.com/rtcagent/rtcagent/internal/server"
)

const testSecret = "e2e-test-secret-0123456789"

// testServer is a server running in this process.
type testServer struct {
	srv  *server.Server
	http *httptest.Server
	cfg  config.Config
}

func (s *testServer) wsURL() string {
	return "ws" + strings.TrimPrefix(s.http.URL, "http") + "/connection/websocket"
}

func (s *testServer) verifier() *auth.Verifier { return s.srv.Verifier() }

// endpoint is a server a browser can connect to.
type endpoint interface {
	wsURL() string
	verifier() *auth.Verifier
}

type serverOpt func(*config.Config)

func startServer(t *testing.T, model llm.Model, opts ...serverOpt) *testServer {
	return startServerB(t, model, opts...)
}

// startServerB starts a server for a test or a benchmark.
func startServerB(t testing.TB, model llm.Model, opts ...serverOpt) *testServer {
	t.Helper()
	return startServerLogging(t, model, os.Stderr, opts...)
}

// startServerLogging starts a server whose warnings and errors go to logs.
func startServerLogging(t testing.TB, model llm.Model, logs io.Writer, opts ...serverOpt) *testServer {
	t.Helper()
	cfg := config.Default()
	cfg.DataFile = filepath.Join(t.TempDir(), "rtcagent.db")
	cfg.Secret = testSecret
	cfg.PollInterval = 100 * time.Millisecond
	cfg.LeaseTTL = 3 * time.Second
	cfg.Provider = "scripted"
	cfg.MsgRate = -1 // tests send fast; TestMessageRateLimit sets it
	for _, o := range opts {
		o(&cfg)
	}
	log := slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelWarn}))
	_, verify := t.(*testing.T) // tests check every cached transcript; benchmarks measure
	srv, err := server.New(context.Background(), cfg, log, server.Options{Model: model, VerifyTranscripts: verify})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(srv.Handler())
	t.Cleanup(func() {
		hs.CloseClientConnections()
		hs.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := srv.Close(ctx); err != nil {
			t.Log("close:", err)
		}
	})
	return &testServer{srv: srv, http: hs, cfg: cfg}
}

func mustScript(t testing.TB, js string) *scripted.Model {
	t.Helper()
	m, err := scripted.Parse([]byte(js))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// writeReadScript: write a file, read it back, answer with its content.
const writeReadScript = `{"name": "write-read", "turns": [{"steps": [
  {"text": "I will write the file first.", "tool_calls": [{"name": "write", "arguments": {"path": "/notes.txt", "content": "hello rtc"}}]},
  {"tool_calls": [{"name": "read", "arguments": {"path": "/notes.txt"}}]},
  {"chunks": ["The file ", "says: ", "{{last_result}}", ". Done."]}
]}]}`

func waitFor(t testing.TB, what string, timeout time.Duration, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func jsonOf(v any) []byte {
	b, _ := json.Marshal(v)
	return b
}
