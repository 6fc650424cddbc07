package client_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rtcagent/rtcagent/internal/config"
	"github.com/rtcagent/rtcagent/internal/llm/scripted"
	"github.com/rtcagent/rtcagent/internal/server"
)

const testSecret = "client-test-secret-0123456789"

// testServer is a real server in this process, with the scripted model.
type testServer struct {
	srv  *server.Server
	http *httptest.Server
}

func startServer(t *testing.T, script string) *testServer {
	t.Helper()
	m, err := scripted.Parse([]byte(script))
	if err != nil {
		t.Fatal(err)
	}
	cfg := config.Default()
	cfg.DataFile = filepath.Join(t.TempDir(), "rtcagent.db")
	cfg.Secret = testSecret
	cfg.Provider = "scripted"
	cfg.PollInterval = 100 * time.Millisecond
	cfg.MsgRate = -1
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	srv, err := server.New(context.Background(), cfg, log, server.Options{Model: m})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(srv.Handler())
	t.Cleanup(func() {
		hs.CloseClientConnections()
		hs.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = srv.Close(ctx)
	})
	return &testServer{srv: srv, http: hs}
}

func (s *testServer) wsURL() string {
	return "ws" + strings.TrimPrefix(s.http.URL, "http") + "/connection/websocket"
}

func (s *testServer) token(t *testing.T, user string, ttl time.Duration) string {
	t.Helper()
	tok, _, err := s.srv.Verifier().Issue(user, ttl)
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

// rpc calls a method over HTTP as device dev of user (the test's own view of
// the server, independent of the client under test).
func (s *testServer) rpc(t *testing.T, user, dev, method string, params, out any) {
	t.Helper()
	body, _ := json.Marshal(params)
	req, _ := http.NewRequest(http.MethodPost, s.http.URL+"/api/v1/rpc/"+method, bytes.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+s.token(t, user, time.Hour))
	req.Header.Set("X-Device-Id", dev)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		var e bytes.Buffer
		_, _ = e.ReadFrom(resp.Body)
		t.Fatalf("%s: %d %s", method, resp.StatusCode, e.String())
	}
	if out != nil {
		if err := json.NewDecoder(resp.Body).Decode(out); err != nil {
			t.Fatal(err)
		}
	}
}

func waitFor(t *testing.T, what string, timeout time.Duration, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// countLines counts the lines of a file (0 when it does not exist).
func countLines(t *testing.T, path string) int {
	t.Helper()
	b, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return 0
	}
	if err != nil {
		t.Fatal(err)
	}
	return bytes.Count(b, []byte("\n"))
}

func appendLine(path, line string) error {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		return err
	}
	defer f.Close()
	if _, err := fmt.Fprintln(f, line); err != nil {
		return err
	}
	return f.Sync()
}
