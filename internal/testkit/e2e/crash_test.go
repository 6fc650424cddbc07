package e2e

import (
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/rtcagent/rtcagent/internal/auth"
	"github.com/rtcagent/rtcagent/internal/protocol"
	"github.com/rtcagent/rtcagent/internal/testkit/testsvc"
)

// procServer is the server running as a child process.
type procServer struct {
	t      *testing.T
	addr   string
	args   []string
	cmd    *exec.Cmd
	verify *auth.Verifier
}

func (p *procServer) wsURL() string            { return "ws://" + p.addr + "/connection/websocket" }
func (p *procServer) verifier() *auth.Verifier { return p.verify }

func freeAddr(t *testing.T) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

func startProc(t *testing.T, script string, extra ...string) *procServer {
	t.Helper()
	dir := t.TempDir()
	scriptFile := filepath.Join(dir, "script.json")
	if err := os.WriteFile(scriptFile, []byte(script), 0o600); err != nil {
		t.Fatal(err)
	}
	v, _ := auth.NewVerifier([]byte(testSecret))
	p := &procServer{t: t, addr: freeAddr(t), verify: v}
	p.args = []string{"serve", "-addr", p.addr, "-data", filepath.Join(dir, "rtcagent.db"), "-token-secret", testSecret,
		"-model-provider", "scripted", "-script", scriptFile, "-poll-interval", "100ms", "-lease-ttl", "2s", "-log-level", "warn", "-message-rate", "-1"}
	p.args = append(p.args, extra...)
	p.start()
	t.Cleanup(func() { p.kill() })
	return p
}

func (p *procServer) start() {
	p.t.Helper()
	p.cmd = exec.Command(testsvc.ServerBinary(p.t), p.args...)
	p.cmd.Stderr = os.Stderr
	if err := p.cmd.Start(); err != nil {
		p.t.Fatal(err)
	}
	waitFor(p.t, "server ready", 15*time.Second, func() bool {
		resp, err := http.Get("http://" + p.addr + "/readyz")
		if err != nil {
			return false
		}
		resp.Body.Close()
		return resp.StatusCode == http.StatusOK
	})
}

func (p *procServer) kill() {
	if p.cmd != nil && p.cmd.Process != nil {
		_ = p.cmd.Process.Signal(syscall.SIGKILL)
		_, _ = p.cmd.Process.Wait()
		p.cmd = nil
	}
}

// TestCrashWhileRTCPending kills the server with SIGKILL while an RTC waits for
// the browser, restarts it on the same data file, and checks the turn completes
// after the client reconnects and submits, with contiguous offsets.
func TestCrashWhileRTCPending(t *testing.T) {
	p := startProc(t, writeReadScript)
	b := newBrowser(t, p, "alice", "dev-a", noExecute)
	res := b.send("", "write and read")
	first := b.pendingRTC()

	p.kill()
	waitFor(t, "client to notice the crash", 10*time.Second, func() bool { return b.c.State() != "connected" })
	p.start()
	waitFor(t, "client to reconnect", 15*time.Second, func() bool { return b.c.State() == "connected" })

	// After a reconnect the browser asks what is still open, then executes it.
	var pending protocol.RTCListResult
	b.mustCall(protocol.MethodRTCPending, struct{}{}, &pending)
	if len(pending.RTCs) != 1 || pending.RTCs[0].ID != first.ID {
		t.Fatalf("pending after restart: %+v", pending.RTCs)
	}
	b.mu.Lock()
	b.execute = true
	b.seenRTC[first.ID] = true
	b.mu.Unlock()
	b.execQueue <- pending.RTCs[0]

	turn := b.waitTurn(res.TurnID, 20*time.Second)
	if turn.Status != protocol.TurnCompleted {
		t.Fatalf("turn %s %+v", turn.Status, turn.Error)
	}
	var ul protocol.UpdateListResult
	b.mustCall(protocol.MethodUpdateList, protocol.UpdateListRequest{SinceOffset: 0, Limit: 1}, &ul)
	b.waitOffset(ul.Top)
	b.checkOffsets()
	msgs := b.assistantMessages(res.SessionID)
	if last := msgs[len(msgs)-1]; last.Text != "The file says: hello rtc. Done." {
		t.Fatalf("final %q", last.Text)
	}
}

// TestCrashWhileStreaming kills the server while a model step streams (the session
// lease is held); after a restart the session resumes once the lease expires: the
// cut message is closed as interrupted, the step runs again and the turn completes.
func TestCrashWhileStreaming(t *testing.T) {
	p := startProc(t, `{"name": "slow", "turns": [{"steps": [
	  {"chunks": ["one ", "two ", "three ", "four ", "five ", "six ", "seven ", "eight "], "delay_ms": 150}]}]}`)
	b := newBrowser(t, p, "alice", "dev-a")
	res := b.send("", "stream slowly")
	waitFor(t, "streaming to start", 10*time.Second, func() bool {
		b.mu.Lock()
		defer b.mu.Unlock()
		return len(b.deltas) > 0
	})
	p.kill()
	p.start()
	waitFor(t, "client to reconnect", 15*time.Second, func() bool { return b.c.State() == "connected" })
	turn := b.waitTurn(res.TurnID, 30*time.Second)
	if turn.Status != protocol.TurnCompleted {
		t.Fatalf("turn %s %+v", turn.Status, turn.Error)
	}
	msgs := b.assistantMessages(res.SessionID)
	if len(msgs) != 2 || msgs[0].Status != protocol.MessageInterrupted || msgs[1].Text != "one two three four five six seven eight " {
		for _, m := range msgs {
			t.Logf("%s %q", m.Status, m.Text)
		}
		t.Fatalf("%d messages after the crash", len(msgs))
	}
	var ul protocol.UpdateListResult
	b.mustCall(protocol.MethodUpdateList, protocol.UpdateListRequest{SinceOffset: 0, Limit: 1}, &ul)
	b.waitOffset(ul.Top)
	b.checkOffsets()
}

// TestGracefulShutdown: SIGTERM stops the server cleanly with exit status 0.
func TestGracefulShutdown(t *testing.T) {
	p := startProc(t, oneWriteScript)
	newBrowser(t, p, "alice", "dev-a")
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- p.cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("exit: %v", err)
		}
		p.cmd = nil
	case <-time.After(15 * time.Second):
		t.Fatal("server did not stop within 15 s of SIGTERM")
	}
}

// TestShutdownMidStreamHandsOver: SIGTERM while a step streams releases the
// session's lease, so after a restart the turn resumes at once although the lease
// TTL is a minute.
func TestShutdownMidStreamHandsOver(t *testing.T) {
	p := startProc(t, `{"name": "slow", "turns": [{"steps": [
	  {"chunks": ["one ", "two ", "three ", "four ", "five ", "six "], "delay_ms": 150}]}]}`, "-lease-ttl", "60s")
	b := newBrowser(t, p, "alice", "dev-a")
	res := b.send("", "stream slowly")
	waitFor(t, "streaming to start", 10*time.Second, func() bool {
		b.mu.Lock()
		defer b.mu.Unlock()
		return len(b.deltas) > 0
	})
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if err := p.cmd.Wait(); err != nil {
		t.Fatalf("exit: %v", err)
	}
	p.cmd = nil
	p.start()
	if tr := b.waitTurn(res.TurnID, 20*time.Second); tr.Status != protocol.TurnCompleted {
		t.Fatalf("turn %s", tr.Status)
	}
}
