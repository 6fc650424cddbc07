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
// line over its 16 MiB limit ends the connection.
type stdioTransport struct {
	cmd   *exec.Cmd
	limit int
	log   *slog.Logger
	seen  func(line []byte)
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
	guard := io.NopCloser(newLineGuard(stdout, t.limit, t.log, t.seen))
	return (&mcp.IOTransport{Reader: guard, Writer: &process{cmd: t.cmd, stdin: stdin}}).Connect(ctx)
}

// process is a server's stdin; closing it ends the server: stdin is closed,
// and a server that has not ended after a grace period is sent SIGTERM, then
// killed.
type process struct {
	cmd   *exec.Cmd
	stdin io.WriteCloser
	once  sync.Once
	err   error
}

const stopGrace = 5 * time.Second

func (p *process) Write(b []byte) (int, error) { return p.stdin.Write(b) }

func (p *process) Close() error {
	p.once.Do(func() {
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
