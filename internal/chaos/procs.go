package chaos

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os/exec"
	"sync"
	"syscall"
	"time"
)

// node is one server child process; it can be killed and started again with the
// same arguments (the same data).
type node struct {
	cmd  []string // executable and leading arguments
	args []string
	addr string
	logw io.Writer

	mu   sync.Mutex
	proc *exec.Cmd
}

func freeAddr() (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer ln.Close()
	return ln.Addr().String(), nil
}

func (n *node) wsURL() string { return "ws://" + n.addr + "/connection/websocket" }

// start runs the process and waits until /readyz answers 200.
func (n *node) start(ctx context.Context) error {
	n.mu.Lock()
	if n.proc != nil {
		n.mu.Unlock()
		return nil
	}
	p := exec.Command(n.cmd[0], append(append([]string(nil), n.cmd[1:]...), n.args...)...)
	p.Stdout, p.Stderr = n.logw, n.logw
	if err := p.Start(); err != nil {
		n.mu.Unlock()
		return fmt.Errorf("start %s: %w", n.addr, err)
	}
	n.proc = p
	n.mu.Unlock()
	return waitUntil(ctx, 30*time.Second, "server "+n.addr+" ready", func() bool {
		resp, err := http.Get("http://" + n.addr + "/readyz")
		if err != nil {
			return false
		}
		resp.Body.Close()
		return resp.StatusCode == http.StatusOK
	})
}

// kill ends the process with SIGKILL: no shutdown, leases stay taken.
func (n *node) kill() {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.proc == nil {
		return
	}
	_ = n.proc.Process.Signal(syscall.SIGKILL)
	_, _ = n.proc.Process.Wait()
	n.proc = nil
}

func (n *node) running() bool {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.proc != nil
}

// redisProc is a private redis-server (nothing on disk), so a run can restart it
// without touching anyone else's Redis.
type redisProc struct {
	path string
	port string

	mu   sync.Mutex
	proc *exec.Cmd
}

func (r *redisProc) url() string { return "redis://127.0.0.1:" + r.port + "/0" }

func (r *redisProc) start(ctx context.Context) error {
	r.mu.Lock()
	if r.proc != nil {
		r.mu.Unlock()
		return nil
	}
	p := exec.Command(r.path, "--port", r.port, "--bind", "127.0.0.1", "--save", "", "--appendonly", "no")
	if err := p.Start(); err != nil {
		r.mu.Unlock()
		return fmt.Errorf("start redis-server: %w", err)
	}
	r.proc = p
	r.mu.Unlock()
	return waitUntil(ctx, 10*time.Second, "redis up", func() bool {
		c, err := net.Dial("tcp", "127.0.0.1:"+r.port)
		if err == nil {
			c.Close()
		}
		return err == nil
	})
}

func (r *redisProc) stop() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.proc == nil {
		return
	}
	_ = r.proc.Process.Kill()
	_, _ = r.proc.Process.Wait()
	r.proc = nil
}

func waitUntil(ctx context.Context, limit time.Duration, what string, cond func() bool) error {
	deadline := time.Now().Add(limit)
	for !cond() {
		if time.Now().After(deadline) {
			return fmt.Errorf("timed out waiting for %s", what)
		}
		select {
		case <-ctx.Done():
			return errors.Join(ctx.Err(), fmt.Errorf("waiting for %s", what))
		case <-time.After(20 * time.Millisecond):
		}
	}
	return nil
}
