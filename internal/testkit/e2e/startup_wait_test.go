package e2e

import (
	"context"
	"io"
	"log/slog"
	"net"
	"net/http/httptest"
	"net/url"
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

	cfg := waitCfg(t)
	cfg.RedisURL, cfg.RedisPfx = "redis://"+addr+"/0", uniquePrefix()
	done := startWaiting(t, cfg)

	rd := exec.Command(redisServer, "--port", port, "--bind", "127.0.0.1", "--save", "", "--appendonly", "no")
	if err := rd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = rd.Process.Kill(); _, _ = rd.Process.Wait() })

	serveAfterWait(t, done)
}

// A node whose PostgreSQL does not answer yet waits for it instead of exiting,
// and serves once it answers.
func TestNodeWaitsForPostgres(t *testing.T) {
	dbURL := requirePostgres(t)
	u, err := url.Parse(dbURL)
	if err != nil {
		t.Fatal(err)
	}
	target := u.Host
	addr := freeAddr(t) // nothing listens there yet
	u.Host = addr
	cfg := waitCfg(t)
	cfg.DBURL = u.String()
	done := startWaiting(t, cfg)

	// PostgreSQL "comes up": a proxy to the real one starts listening there.
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				up, err := net.Dial("tcp", target)
				if err != nil {
					return
				}
				defer up.Close()
				go func() { _, _ = io.Copy(up, c) }()
				_, _ = io.Copy(c, up)
			}()
		}
	}()
	serveAfterWait(t, done)
}

type started struct {
	srv *server.Server
	err error
}

func waitCfg(t *testing.T) config.Config {
	cfg := config.Default()
	cfg.DataFile = t.TempDir() + "/rtcagent.db"
	cfg.Secret = testSecret
	cfg.Provider = "scripted"
	return cfg
}

// startWaiting starts a server in the background and checks that it is still
// waiting for its backend half a second later.
func startWaiting(t *testing.T, cfg config.Config) <-chan started {
	t.Helper()
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelError}))
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	t.Cleanup(cancel)
	model := mustScript(t, `{"name": "idle", "turns": [{"steps": [{"text": "hi"}]}]}`)
	done := make(chan started, 1)
	go func() {
		srv, err := server.New(ctx, cfg, log, server.Options{Model: model})
		done <- started{srv, err}
	}()
	select {
	case s := <-done:
		t.Fatalf("the node did not wait for its backend: %v", s.err)
	case <-time.After(500 * time.Millisecond):
	}
	return done
}

// serveAfterWait checks that the waiting server starts and is ready.
func serveAfterWait(t *testing.T, done <-chan started) {
	t.Helper()
	var s started
	select {
	case s = <-done:
	case <-time.After(time.Minute):
		t.Fatal("the node did not start after its backend came up")
	}
	if s.err != nil {
		t.Fatalf("start after the backend came up: %v", s.err)
	}
	hs := httptest.NewServer(s.srv.Handler())
	defer hs.Close()
	if code, _, _ := get(t, hs.URL+"/readyz"); code != 200 {
		t.Errorf("readyz %d", code)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := s.srv.Close(ctx); err != nil {
		t.Log("close:", err)
	}
}
