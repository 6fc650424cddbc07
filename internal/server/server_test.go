package server_test

import (
	"context"
	"encoding/json"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	cgo "github.com/centrifugal/centrifuge-go"

	"github.com/rtcagent/rtcagent/internal/config"
	"github.com/rtcagent/rtcagent/internal/llm/scripted"
	"github.com/rtcagent/rtcagent/internal/protocol"
	"github.com/rtcagent/rtcagent/internal/server"
	"github.com/rtcagent/rtcagent/internal/testkit/llmfake"
	"github.com/rtcagent/rtcagent/internal/testkit/testsvc"
)

// TestEmbedded: no flags but a secret and a data file: SQLite and the in-memory
// broker start, serve a turn end to end, and stop.
func TestEmbedded(t *testing.T) {
	cfg := baseConfig(t)
	cfg.DataFile = filepath.Join(t.TempDir(), "embedded.db")
	ready := serveAndStop(t, cfg, protocol.TurnCompleted)
	if ready["store"] != "sqlite "+cfg.DataFile || ready["broker"] != "memory" {
		t.Fatalf("ready log names store %q, broker %q", ready["store"], ready["broker"])
	}
}

// TestPostgresRedis: a database URL and a Redis URL switch to the PostgreSQL store
// and the Redis broker; the same turn runs, and the log names what is in use (not
// the SQLite file, and no credentials).
func TestPostgresRedis(t *testing.T) {
	pg := testsvc.PostgresURL(t)
	schema := testsvc.Schema(t, pg)
	cfg := baseConfig(t)
	cfg.DBURL = pg + "&search_path=" + schema
	cfg.RedisURL = testsvc.RedisURL(t)
	cfg.RedisPfx = "srv" + testsvc.Unique()
	cfg.DataFile = filepath.Join(t.TempDir(), "unused.db")
	ready := serveAndStop(t, cfg, protocol.TurnCompleted)
	if !strings.HasPrefix(ready["store"], "postgresql ") || !strings.HasSuffix(ready["store"], "schema "+schema) ||
		strings.Contains(ready["store"], "unused.db") || !strings.HasPrefix(ready["broker"], "redis ") {
		t.Fatalf("ready log names store %q, broker %q", ready["store"], ready["broker"])
	}
}

func baseConfig(t *testing.T) config.Config {
	script := filepath.Join(t.TempDir(), "script.json")
	if err := os.WriteFile(script, []byte(`{"name": "wiring", "turns": [{"steps": [{"text": "Hello from the wiring test."}]}]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg := config.Default()
	cfg.Script = script
	cfg.Addr = "127.0.0.1:0"
	cfg.Secret = "server-test-secret-0123456789"
	cfg.Provider = "scripted"
	cfg.ShutdownWait = 5 * time.Second
	return cfg
}

// serveAndStop starts the server, checks that the port accepts connections when
// "rtcagent ready" is logged, runs one turn through HTTP and a WebSocket client,
// stops it, and returns the ready record's attributes.
func serveAndStop(t *testing.T, cfg config.Config, wantTurn string) map[string]string {
	t.Helper()
	logs := &readyLog{ready: make(chan map[string]string, 1)}
	log := slog.New(logs)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	srv, err := server.New(ctx, cfg, log, server.Options{})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- srv.ListenAndServe(ctx) }()
	var ready map[string]string
	select {
	case ready = <-logs.ready:
	case err := <-done:
		t.Fatalf("serve: %v", err)
	case <-time.After(30 * time.Second):
		t.Fatal("no ready log")
	}
	if ready["bound"] != "true" {
		t.Fatalf("ready logged before the port accepted connections: %v", ready)
	}
	base := "http://" + ready["addr"]
	if resp, err := http.Get(base + "/readyz"); err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("readyz: %v %v", resp, err)
	}

	tok, _, err := srv.Verifier().Issue("alice", time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	offsets := watchTopic(t, "ws://"+ready["addr"]+"/connection/websocket", tok)
	body := `{"client_id": "c1", "content": {"text": "hello"}}`
	req, _ := http.NewRequest(http.MethodPost, base+"/api/v1/rpc/"+protocol.MethodMessageSend, strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+tok)
	req.Header.Set("X-Device-Id", "d1")
	resp, err := http.DefaultClient.Do(req)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("message.send: %v %v", resp, err)
	}
	resp.Body.Close()
	// The turn runs on the runner and its updates arrive through the relay, in
	// order, up to the turn's end.
	offsets.waitTurnEnd(t, wantTurn, 30*time.Second)

	cancel()
	t0 := time.Now()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("serve returned %v", err)
		}
	case <-time.After(cfg.ShutdownWait + 5*time.Second):
		t.Fatal("shutdown did not return")
	}
	t.Logf("store %q broker %q; shutdown took %v", ready["store"], ready["broker"], time.Since(t0))
	if _, err := net.DialTimeout("tcp", ready["addr"], time.Second); err == nil {
		t.Fatal("port still open after shutdown")
	}
	return ready
}

// readyLog is a slog handler that, on "rtcagent ready", dials the logged address
// at once (bound: whether it accepted) and hands the record's attributes over.
type readyLog struct {
	ready chan map[string]string
	attrs []slog.Attr
}

func (h *readyLog) Enabled(context.Context, slog.Level) bool { return true }
func (h *readyLog) WithAttrs(as []slog.Attr) slog.Handler {
	return &readyLog{ready: h.ready, attrs: append(append([]slog.Attr(nil), h.attrs...), as...)}
}
func (h *readyLog) WithGroup(string) slog.Handler { return h }
func (h *readyLog) Handle(_ context.Context, r slog.Record) error {
	if r.Message != "rtcagent ready" {
		return nil
	}
	m := map[string]string{}
	r.Attrs(func(a slog.Attr) bool { m[a.Key] = a.Value.String(); return true })
	c, err := net.DialTimeout("tcp", m["addr"], time.Second)
	m["bound"] = "false"
	if err == nil {
		m["bound"] = "true"
		c.Close()
	}
	select {
	case h.ready <- m:
	default:
	}
	return nil
}

// topicWatch records a user's Topic publications.
type topicWatch struct {
	mu   sync.Mutex
	offs []uint64
	turn string // the last turn status published
	errs []string
}

func watchTopic(t *testing.T, url, tok string) *topicWatch {
	t.Helper()
	w := &topicWatch{}
	c := cgo.NewJsonClient(url, cgo.Config{Token: tok, Data: []byte(`{"device_id":"d1"}`)})
	connected := make(chan struct{}, 1)
	c.OnConnected(func(cgo.ConnectedEvent) {
		select {
		case connected <- struct{}{}:
		default:
		}
	})
	c.OnPublication(func(e cgo.ServerPublicationEvent) {
		if !strings.HasPrefix(e.Channel, "topic:") {
			return
		}
		var u protocol.Update
		_ = json.Unmarshal(e.Data, &u)
		w.mu.Lock()
		defer w.mu.Unlock()
		if n := len(w.offs); n > 0 && e.Offset != w.offs[n-1]+1 {
			w.errs = append(w.errs, "gap or repeat")
		}
		w.offs = append(w.offs, e.Offset)
		var turn struct {
			Status string `json:"status"`
		}
		for _, c := range u.Changes {
			if c.Type == "turn.updated" && json.Unmarshal(c.Data, &turn) == nil {
				w.turn = turn.Status
			}
		}
	})
	if err := c.Connect(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	select {
	case <-connected:
	case <-time.After(10 * time.Second):
		t.Fatal("client did not connect")
	}
	return w
}

func (w *topicWatch) waitTurnEnd(t *testing.T, want string, within time.Duration) {
	t.Helper()
	deadline := time.Now().Add(within)
	for time.Now().Before(deadline) {
		w.mu.Lock()
		turn, offs, errs := w.turn, append([]uint64(nil), w.offs...), w.errs
		w.mu.Unlock()
		if len(errs) > 0 {
			t.Fatalf("topic publications out of order: %v", offs)
		}
		if protocol.TurnTerminal(turn) {
			if turn != want {
				t.Fatalf("turn ended %s, want %s", turn, want)
			}
			if offs[0] != 1 {
				t.Fatalf("first offset %d", offs[0])
			}
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("the turn did not end (last status %q)", w.turn)
}

// TestStalledProviderRetried: an OpenAI-compatible provider that goes silent
// fails the step at the idle timeout as a transient error: before any text, the
// runner's retry completes the turn; after text was shown (which a retry would
// show twice), the turn fails visibly as retryable instead of running on.
func TestStalledProviderRetried(t *testing.T) {
	for _, c := range []struct {
		name     string
		after    int
		requests int
		turn     string
	}{
		{"after headers", 0, 2, protocol.TurnCompleted},
		{"mid-body", 2, 1, protocol.TurnFailed},
	} {
		t.Run(c.name, func(t *testing.T) {
			brain, err := scripted.Parse([]byte(`{"name": "stall", "turns": [{"steps": [{"chunks": ["Hello ", "from ", "the ", "retry."]}]}]}`))
			if err != nil {
				t.Fatal(err)
			}
			fake := llmfake.NewOpenAI(brain)
			defer fake.Close()
			fake.StallNext(1, c.after)
			cfg := baseConfig(t)
			cfg.DataFile = filepath.Join(t.TempDir(), "stall.db")
			cfg.Provider, cfg.OpenAIURL, cfg.OpenAIKey, cfg.OpenAIMdl = "openai", fake.URL(), "test-key", "gpt-test"
			cfg.ModelIdle, cfg.Retries, cfg.RetryWait = 300*time.Millisecond, 3, 10*time.Millisecond
			serveAndStop(t, cfg, c.turn)
			if n := len(fake.Requests()); n != c.requests {
				t.Fatalf("provider saw %d requests, want %d", n, c.requests)
			}
		})
	}
}
