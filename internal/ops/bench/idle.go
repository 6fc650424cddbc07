package bench

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/rtcagent/rtcagent/internal/auth"
	"github.com/rtcagent/rtcagent/internal/testkit/simclient"
)

// settle lets the server finish connection setup (subscriptions, presence)
// before memory is read.
const settle = 3 * time.Second

// measureIdle connects o.Idle clients that then do nothing, and divides the
// server's memory growth by their number.
//
// With o.ServeCmd (the rtcagent command) the server is a child process and the
// figure is its resident set growth (VmRSS in /proc/<pid>/status): everything the
// kernel charges to the server per connection (heap, goroutine stacks, socket
// buffers in user space), and nothing of the clients. Without it (tests) the
// server runs in this process and the figure is the growth of Go heap in use plus
// goroutine stacks after a GC, which also counts the clients' own objects: an
// upper bound, labelled as such.
func measureIdle(ctx context.Context, o Options, tmp, prefix string) (*Idle, error) {
	if len(o.ServeCmd) > 0 {
		return idleChild(ctx, o, tmp, prefix)
	}
	srv, err := startServer(ctx, o, newModel(o.Calls, o.Tool), filepath.Join(tmp, "idle.db"), prefix)
	if err != nil {
		return nil, err
	}
	defer srv.close()
	before := goMem()
	clients, err := dialAll(ctx, srv.url, srv.ver, prefix, o.Idle, func(int) simclient.Config { return simclient.Config{} })
	if err != nil {
		return nil, err
	}
	defer closeAll(clients)
	time.Sleep(settle)
	after := goMem()
	return &Idle{Conns: o.Idle, BytesPerConn: float64(after-before) / float64(o.Idle),
		Method: "in-process Go heap in use + stacks after GC, server and clients together: an upper bound"}, nil
}

func goMem() int64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return int64(ms.HeapInuse + ms.StackInuse)
}

func idleChild(ctx context.Context, o Options, tmp, prefix string) (*Idle, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	addr := ln.Addr().String()
	ln.Close() // the child binds it right away; loopback ports are not contended here
	args := append(append([]string(nil), o.ServeCmd[1:]...), "serve", "-addr", addr, "-data", filepath.Join(tmp, "idle-child.db"),
		"-token-secret", secret, "-model-provider", "scripted", "-log-level", "error", "-message-rate", "-1", "-redis-prefix", prefix)
	if o.DBURL != "" {
		args = append(args, "-database-url", o.DBURL)
	}
	if o.RedisURL != "" {
		args = append(args, "-redis-url", o.RedisURL)
	}
	cmd := exec.Command(o.ServeCmd[0], args...)
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	defer func() {
		_ = cmd.Process.Signal(os.Interrupt)
		select {
		case <-exited:
		case <-time.After(15 * time.Second):
			_ = cmd.Process.Kill()
			<-exited
		}
	}()
	if err := waitReady(ctx, "http://"+addr+"/readyz", exited); err != nil {
		return nil, err
	}
	ver, err := auth.NewVerifier([]byte(secret))
	if err != nil {
		return nil, err
	}
	before, err := rss(cmd.Process.Pid)
	if err != nil {
		return nil, err
	}
	clients, err := dialAll(ctx, "ws://"+addr+"/connection/websocket", ver, prefix, o.Idle, func(int) simclient.Config { return simclient.Config{} })
	if err != nil {
		return nil, err
	}
	defer closeAll(clients)
	time.Sleep(settle)
	after, err := rss(cmd.Process.Pid)
	if err != nil {
		return nil, err
	}
	return &Idle{Conns: o.Idle, BytesPerConn: float64(after-before) / float64(o.Idle),
		Method: "server child process, VmRSS growth from /proc/<pid>/status"}, nil
}

func waitReady(ctx context.Context, url string, exited <-chan error) error {
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		select {
		case err := <-exited:
			return fmt.Errorf("server exited: %v", err)
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
		if resp, err := http.Get(url); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
	}
	return errors.New("server not ready after 30s")
}

// rss reads the resident set size of a process, in bytes.
func rss(pid int) (int64, error) {
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "VmRSS:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return kb * 1024, err
		}
	}
	return 0, errors.New("no VmRSS in /proc/status")
}
