package chaos

import (
	"github.com/rtcagent/rtcagent/internal/testkit/nodeproc"

	"context"
	"fmt"
	"net"
	"os/exec"
	"sync"
	"time"
)

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
	return nodeproc.WaitUntil(ctx, 10*time.Second, "redis up", func() bool {
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
