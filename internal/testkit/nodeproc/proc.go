package nodeproc

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

// Proc is one server child process; it can be killed and started again with the
// same arguments (the same data).
type Proc struct {
	Cmd  []string // executable and leading arguments
	Args []string
	Addr string    // host:port it listens on (an argument of Args)
	Log  io.Writer // its standard output and error

	mu     sync.Mutex
	proc   *exec.Cmd
	exited chan struct{} // closes when proc ended
}

// FreeAddr returns a loopback address with a port that was free a moment ago.
func FreeAddr() (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer ln.Close()
	return ln.Addr().String(), nil
}

// WSURL is the node's WebSocket endpoint.
func (n *Proc) WSURL() string { return "ws://" + n.Addr + "/connection/websocket" }

// Start runs the process and waits until /readyz answers 200. A process that
// exits while starting is started again, as a supervisor would; retries counts
// those restarts. (A node started while Redis or PostgreSQL is down waits.)
func (n *Proc) Start(ctx context.Context) (retries int, err error) {
	deadline := time.Now().Add(time.Minute)
	for {
		exited, err := n.spawn()
		if err != nil {
			return retries, err
		}
		if exited == nil {
			return retries, nil // already running
		}
		err = WaitUntil(ctx, time.Until(deadline), "server "+n.Addr+" ready", func() bool {
			select {
			case <-exited:
				return true
			default:
			}
			resp, err := http.Get("http://" + n.Addr + "/readyz")
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
			return retries, fmt.Errorf("server %s exited while starting", n.Addr)
		default:
			return retries, err
		}
	}
}

// spawn starts the process unless it runs; exited closes when it ends.
func (n *Proc) spawn() (exited chan struct{}, err error) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.proc != nil {
		return nil, nil
	}
	p := exec.Command(n.Cmd[0], append(append([]string(nil), n.Cmd[1:]...), n.Args...)...)
	p.Stdout, p.Stderr = n.Log, n.Log
	if err := p.Start(); err != nil {
		return nil, fmt.Errorf("start %s: %w", n.Addr, err)
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

// Pid is the running process's id, 0 when it does not run.
func (n *Proc) Pid() int {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.proc == nil {
		return 0
	}
	return n.proc.Process.Pid
}

// Kill ends the process with SIGKILL: no shutdown, leases stay taken.
func (n *Proc) Kill() { n.signal(syscall.SIGKILL, 0) }

// Stop asks the process to shut down (SIGTERM: it releases its leases) and
// kills it when it has not ended after grace.
func (n *Proc) Stop(grace time.Duration) { n.signal(syscall.SIGTERM, grace) }

// signal sends sig and waits until the process ended; after grace (when
// positive) it sends SIGKILL.
func (n *Proc) signal(sig syscall.Signal, grace time.Duration) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.proc == nil {
		return
	}
	p, exited := n.proc, n.exited
	_ = p.Process.Signal(sig)
	n.mu.Unlock()
	if grace > 0 {
		select {
		case <-exited:
		case <-time.After(grace):
			_ = p.Process.Signal(syscall.SIGKILL)
		}
	}
	<-exited // reaped by spawn's waiter
	n.mu.Lock()
	if n.proc == p {
		n.proc = nil
	}
}

// Pause stops the process for d and lets it go on: a node that stalls longer
// than its liveness TTL and then writes as if it still owned its sessions.
// False when it was not running, or where a process cannot be stopped
// (pause.go).
func (n *Proc) Pause(d time.Duration) bool {
	n.mu.Lock()
	p := n.proc
	n.mu.Unlock()
	if p == nil || stop(p.Process) != nil {
		return false
	}
	time.Sleep(d)
	_ = cont(p.Process)
	return true
}

// WaitUntil polls cond every 20 ms until it holds, limit passed or ctx ended.
func WaitUntil(ctx context.Context, limit time.Duration, what string, cond func() bool) error {
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
