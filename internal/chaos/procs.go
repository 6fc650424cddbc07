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

	mu     sync.Mutex
	proc   *exec.Cmd
	exited chan struct{} // closes when proc ended
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

// start runs the process and waits until /readyz answers 200. A process that
// exits while starting is started again, as a supervisor would; retries counts
// those restarts. (A node started while Redis or PostgreSQL is down waits.)
func (n *node) start(ctx context.Context) (retries int, err error) {
	deadline := time.Now().Add(time.Minute)
	for {
		exited, err := n.spawn()
		if err != nil {
			return retries, err
		}
		if exited == nil {
			return retries, nil // already running
		}
		err = waitUntil(ctx, time.Until(deadline), "server "+n.addr+" ready", func() bool {
			select {
			case <-exited:
				return true
			default:
			}
			resp, err := http.Get("http://" + n.addr + "/readyz")
			if err != nil {
				return false
			}
			resp.Body.Close()
			return resp.StatusCode == http.StatusOK
		})
		select {
		case <-exited:
			n.mu.Lock()
			if n.exited == exited {
				n.proc = nil
			}
			n.mu.Unlock()
			if err == nil && time.Now().Before(deadline) {
				retries++
				time.Sleep(200 * time.Millisecond)
				continue
			}
			return retries, fmt.Errorf("server %s exited while starting", n.addr)
		default:
			return retries, err
		}
	}
}

// spawn starts the process unless it runs; exited closes when it ends.
func (n *node) spawn() (exited chan struct{}, err error) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.proc != nil {
		return nil, nil
	}
	p := exec.Command(n.cmd[0], append(append([]string(nil), n.cmd[1:]...), n.args...)...)
	p.Stdout, p.Stderr = n.logw, n.logw
	if err := p.Start(); err != nil {
		return nil, fmt.Errorf("start %s: %w", n.addr, err)
	}
	n.proc = p
	exited = make(chan struct{})
	n.exited = exited
	go func() {
		_ = p.Wait()
		close(exited)
	}()
	return exited, nil
}

// kill ends the process with SIGKILL: no shutdown, leases stay taken.
func (n *node) kill() {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.proc == nil {
		return
	}
	p, exited := n.proc, n.exited
	_ = p.Process.Signal(syscall.SIGKILL)
	n.mu.Unlock()
	<-exited // reaped by spawn's waiter
	n.mu.Lock()
	if n.proc == p {
		n.proc = nil
	}
}

// pause stops the process (SIGSTOP) for d and lets it go on (SIGCONT): a node
// that stalls longer than its liveness TTL and then writes as if it still owned its
// sessions. False when it was not running.
func (n *node) pause(d time.Duration) bool {
	n.mu.Lock()
	p := n.proc
	n.mu.Unlock()
	if p == nil || p.Process.Signal(syscall.SIGSTOP) != nil {
		return false
	}
	time.Sleep(d)
	_ = p.Process.Signal(syscall.SIGCONT)
	return true
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
