package e2e

import (
	"context"
	"log/slog"
	"net"
	"net/http/httptest"
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/rtcagent/rtcagent/internal/config"
	"github.com/rtcagent/rtcagent/internal/server"
)

// A node whose Redis is not up yet waits for it instead of exiting, and serves
// once Redis answers.
func TestNodeWaitsForRedis(t *testing.T) {
	redisServer, err := exec.LookPath("redis-server")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("redis-server required")
		}
		t.Skip("no redis-server binary")
	}
	addr := freeAddr(t) // nothing listens there yet
	_, port, _ := net.SplitHostPort(addr)

	cfg := config.Default()
	cfg.DataFile = t.TempDir() + "/rtcagent.db"
	cfg.Secret = testSecret
	cfg.Provider = "scripted"
	cfg.RedisURL, cfg.RedisPfx = "redis://"+addr+"/0", uniquePrefix()
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelError}))
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	type started struct {
		srv *server.Server
		err error
	}
	model := mustScript(t, `{"name": "idle", "turns": [{"steps": [{"text": "hi"}]}]}`)
	done := make(chan started, 1)
	go func() {
		srv, err := server.New(ctx, cfg, log, server.Options{Model: model})
		done <- started{srv, err}
	}()
	select {
	case s := <-done:
		t.Fatalf("the node did not wait for Redis: %v", s.err)
	case <-time.After(500 * time.Millisecond):
	}

	rd := exec.Command(redisServer, "--port", port, "--bind", "127.0.0.1", "--save", "", "--appendonly", "no")
	if err := rd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = rd.Process.Kill(); _, _ = rd.Process.Wait() })

	var s started
	select {
	case s = <-done:
	case <-ctx.Done():
		t.Fatal("the node did not start after Redis came up")
	}
	if s.err != nil {
		t.Fatalf("start after Redis came up: %v", s.err)
	}
	hs := httptest.NewServer(s.srv.Handler())
	defer hs.Close()
	if code, _, _ := get(t, hs.URL+"/readyz"); code != 200 {
		t.Errorf("readyz %d", code)
	}
	closeCtx, cancelClose := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancelClose()
	if err := s.srv.Close(closeCtx); err != nil {
		t.Log("close:", err)
	}
}
