package client_test

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rtcagent/rtcagent/client"
	"github.com/rtcagent/rtcagent/internal/protocol"
	"github.com/rtcagent/rtcagent/internal/testkit/testserver"
)

// The crash tests run this test binary again as the client process (TestMain
// below), so SIGKILL ends a real process in the middle of a tool.
const (
	envChild   = "RTCAGENT_CLIENT_CHILD" // "block", "stall-after-result" or "ok"
	envURL     = "RTCAGENT_CLIENT_URL"
	envToken   = "RTCAGENT_CLIENT_TOKEN"
	envDir     = "RTCAGENT_CLIENT_DIR"
	deviceID   = "go-crash"
	runsFile   = "runs"     // one line per execution of the tool
	recordFile = "recorded" // written when the outcome is in the journal
)

func TestMain(m *testing.M) {
	if mode := os.Getenv(envChild); mode != "" {
		os.Exit(child(mode))
	}
	os.Exit(m.Run())
}

// child is the client process: a tool "touch" that counts its runs in a file.
// In mode block the tool never returns; in mode stall-after-result the process
// stops after the result is journaled, before it is submitted.
func child(mode string) int {
	dir := os.Getenv(envDir)
	c, err := client.New(client.Options{URL: os.Getenv(envURL), Token: os.Getenv(envToken), DeviceID: deviceID,
		JournalDir: filepath.Join(dir, "journal")})
	if err != nil {
		os.Stderr.WriteString(err.Error() + "\n")
		return 2
	}
	if mode == "stall-after-result" {
		client.SetAfterOutcome(func(string) {
			_ = appendLine(filepath.Join(dir, recordFile), "recorded")
			select {} // wait for SIGKILL
		})
	}
	err = c.RegisterTool(client.Tool{Name: "touch", Description: "Counts a run.", Run: func(context.Context, json.RawMessage) (any, error) {
		if err := appendLine(filepath.Join(dir, runsFile), "run"); err != nil {
			return nil, err
		}
		if mode == "block" {
			select {} // wait for SIGKILL
		}
		return "touched", nil
	}})
	if err != nil {
		os.Stderr.WriteString(err.Error() + "\n")
		return 2
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM)
	defer stop()
	if err := c.Run(ctx); err != nil {
		os.Stderr.WriteString(err.Error() + "\n")
		return 1
	}
	return 0
}

type childProc struct {
	t   *testing.T
	cmd *exec.Cmd
}

func startChild(t *testing.T, s *testserver.Server, dir, mode string) *childProc {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), envChild+"="+mode, envURL+"="+s.WSURL(), envToken+"="+s.Token(t, "dora", time.Hour), envDir+"="+dir)
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := &childProc{t: t, cmd: cmd}
	t.Cleanup(p.kill)
	return p
}

func (p *childProc) kill() {
	if p.cmd != nil {
		_ = p.cmd.Process.Signal(syscall.SIGKILL)
		_ = p.cmd.Wait()
		p.cmd = nil
	}
}

const touchScript = `{"name": "touch", "turns": [{"steps": [
  {"tool_calls": [{"name": "touch", "arguments": {}}]},
  {"chunks": ["result: ", "{{last_result}}"]}
]}]}`

// sendTouch posts the message as the child's device (over HTTP, so the test
// itself executes nothing) and returns the turn.
func sendTouch(t *testing.T, s *testserver.Server) protocol.MessageSendResult {
	t.Helper()
	var res protocol.MessageSendResult
	s.RPC(t, "dora", deviceID, protocol.MethodMessageSend, protocol.MessageSendRequest{ClientID: "m-1", WorkMode: protocol.ModeBypass,
		Content: protocol.MessageContent{Text: "touch it"}, Tools: []protocol.HostTool{{Name: "touch", Description: "Counts a run.", Parameters: json.RawMessage(`{"type":"object"}`)}}}, &res)
	return res
}

func rtcOf(t *testing.T, s *testserver.Server, sessionID string) protocol.RTC {
	t.Helper()
	var l protocol.RTCListResult
	s.RPC(t, "dora", deviceID, protocol.MethodRTCList, protocol.ListRequest{SessionID: sessionID}, &l)
	if len(l.RTCs) != 1 {
		t.Fatalf("%d RTCs", len(l.RTCs))
	}
	return l.RTCs[0]
}

func waitTurnEnd(t *testing.T, s *testserver.Server, turnID string) protocol.Turn {
	t.Helper()
	var tr protocol.TurnResult
	waitFor(t, "the turn to end", 30*time.Second, func() bool {
		s.RPC(t, "dora", deviceID, protocol.MethodTurnGet, protocol.IDRequest{TurnID: turnID}, &tr)
		return protocol.TurnTerminal(tr.Turn.Status)
	})
	return tr.Turn
}

// TestKilledDuringToolIsReportedInterrupted: the client process is killed with
// SIGKILL while its tool runs; restarted on the same journal it reports the call
// as interrupted and never runs it again.
func TestKilledDuringToolIsReportedInterrupted(t *testing.T) {
	s := startServer(t, touchScript)
	dir := t.TempDir()
	first := startChild(t, s, dir, "block")
	res := sendTouch(t, s)
	waitFor(t, "the tool to run", 30*time.Second, func() bool { return countLines(t, filepath.Join(dir, runsFile)) == 1 })
	if r := rtcOf(t, s, res.SessionID); r.Status != protocol.RTCExecuting {
		t.Fatalf("RTC %s while the tool runs", r.Status)
	}
	first.kill()

	startChild(t, s, dir, "ok")
	turn := waitTurnEnd(t, s, res.TurnID)
	r := rtcOf(t, s, res.SessionID)
	if turn.Status != protocol.TurnCompleted || r.Status != protocol.RTCFailed || !strings.HasPrefix(r.Error, "interrupted") {
		t.Fatalf("turn %s, RTC %s %q", turn.Status, r.Status, r.Error)
	}
	if n := countLines(t, filepath.Join(dir, runsFile)); n != 1 {
		t.Fatalf("the tool ran %d times", n)
	}
}

// TestKilledBeforeSubmitResubmits: the client process is killed after the
// tool's result is in its journal but before the server has it; restarted, it
// submits that result without running the tool again.
func TestKilledBeforeSubmitResubmits(t *testing.T) {
	s := startServer(t, touchScript)
	dir := t.TempDir()
	first := startChild(t, s, dir, "stall-after-result")
	res := sendTouch(t, s)
	waitFor(t, "the result to be journaled", 30*time.Second, func() bool { return countLines(t, filepath.Join(dir, recordFile)) == 1 })
	if r := rtcOf(t, s, res.SessionID); r.Status != protocol.RTCExecuting {
		t.Fatalf("RTC %s before the submission", r.Status)
	}
	first.kill()

	startChild(t, s, dir, "ok")
	turn := waitTurnEnd(t, s, res.TurnID)
	r := rtcOf(t, s, res.SessionID)
	if turn.Status != protocol.TurnCompleted || r.Status != protocol.RTCCompleted || string(r.Output) != `"touched"` {
		t.Fatalf("turn %s, RTC %s %s %q", turn.Status, r.Status, r.Output, r.Error)
	}
	if n := countLines(t, filepath.Join(dir, runsFile)); n != 1 {
		t.Fatalf("the tool ran %d times", n)
	}
}
