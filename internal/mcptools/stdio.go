package mcptools

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"os/exec"
	"sync"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// stdioTransport runs a server's command and speaks to it over its stdin and
// stdout, as the SDK's CommandTransport does, but reads the server's output
// through a lineGuard: the SDK's transport takes no bound of its own and a
// line over its 16 MiB limit ends the connection. side sends beside the SDK
// on the same pipes (side.go); take sees each line first, and a line it
// takes is not passed on to the SDK.
type stdioTransport struct {
	cmd   *exec.Cmd
	limit int
	log   *slog.Logger
	side  *lineSide
	take  func(line []byte) bool
}

func (t *stdioTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	stdout, err := t.cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	stdin, err := t.cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	if err := t.cmd.Start(); err != nil {
		return nil, err
	}
	// Closing the connection closes the server's stdin (its signal to end),
	// not its stdout: that is closed once the process has ended.
	p := &process{cmd: t.cmd, stdin: stdin, side: t.side}
	t.side.mu.Lock()
	t.side.w = p
	t.side.mu.Unlock()
	guard := io.NopCloser(newLineGuard(stdout, t.limit, t.log, t.take))
	return (&mcp.IOTransport{Reader: guard, Writer: p}).Connect(ctx)
}

// process is a server's stdin; closing it ends the server: stdin is closed,
// and a server that has not ended after a grace period is sent SIGTERM, then
// killed. Each Write is one whole message: the SDK's and those sent beside
// it (side) are written one at a time.
type process struct {
	cmd      *exec.Cmd
	stdin    io.WriteCloser
	side     *lineSide
	wmu      sync.Mutex
	declared bool // the initialize request declared the client's tasks (under wmu)
	once     sync.Once
	err      error
}

const stopGrace = 5 * time.Second

func (p *process) Write(b []byte) (int, error) {
	p.wmu.Lock()
	defer p.wmu.Unlock()
	out := b
	if !p.declared {
		// Until the initialize request went out: later messages are not read for it.
		out = declareTasks(b)
		p.declared = len(out) != len(b)
	}
	if _, err := p.stdin.Write(out); err != nil {
		return 0, err
	}
	return len(b), nil
}

func (p *process) Close() error {
	p.once.Do(func() {
		p.side.close()
		cerr := p.stdin.Close()
		done := make(chan error, 1)
		go func() { done <- p.cmd.Wait() }()
		for _, signal := range []func() error{
			func() error { return nil },
			func() error { return p.cmd.Process.Signal(syscall.SIGTERM) },
			p.cmd.Process.Kill,
		} {
			_ = signal() // fails when the process has ended: Wait returns then
			select {
			case err := <-done:
				p.err = errors.Join(cerr, exitErr(err))
				return
			case <-time.After(stopGrace):
			}
		}
		p.err = errors.New("the MCP server's process did not end")
	})
	return p.err
}

// exitErr leaves out the exit status of a server that ended on its stdin's
// close or on the signal sent for it: that is how it is meant to end.
func exitErr(err error) error {
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return nil
	}
	return err
}
