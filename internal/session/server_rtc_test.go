package session

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rtcagent/rtcagent/internal/core"
	"github.com/rtcagent/rtcagent/internal/llm/scripted"
	"github.com/rtcagent/rtcagent/internal/mcptools"
	"github.com/rtcagent/rtcagent/internal/protocol"
	"github.com/rtcagent/rtcagent/internal/store"
	"github.com/rtcagent/rtcagent/internal/testkit/mcptest"
	"github.com/rtcagent/rtcagent/internal/testkit/testsvc"
	"github.com/rtcagent/rtcagent/internal/tools"
)

// startMCP runs the test MCP server as a child process ("test", counting sleep
// calls in countFile) and waits until its tools are listed.
func startMCP(t *testing.T, countFile string) *mcptools.Manager {
	t.Helper()
	m := mcptools.Start(&mcptools.Config{Servers: []mcptools.Server{{Name: "test", Command: mcptest.Binary(t), Args: []string{"-count", countFile}}}},
		mcptools.Options{MinBackoff: 50 * time.Millisecond})
	t.Cleanup(m.Close)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if err := m.Ready(ctx); err != nil {
		t.Fatal(err)
	}
	return m
}

// mcpTurn is the scripted model of a turn that calls one MCP tool and then
// answers with its result, and that turn's first message sent in bypass mode.
func mcpTurn(t *testing.T, st store.Store, call, text string) (*scripted.Model, *protocol.MessageSendResult) {
	t.Helper()
	model, err := scripted.Parse([]byte(`{"name": "mcp", "turns": [{"steps": [
	  {"tool_calls": [` + call + `]},
	  {"text": "after: {{last_result}}"}]}]}`))
	if err != nil {
		t.Fatal(err)
	}
	var res *protocol.MessageSendResult
	if err := st.Write(t.Context(), func(tx store.Tx) error {
		res, err = core.SendMessage(tx, core.Caller{UserID: "u", DeviceID: "d"},
			&protocol.MessageSendRequest{ClientID: "c1", WorkMode: protocol.ModeBypass, Content: protocol.MessageContent{Text: text}})
		return err
	}); err != nil {
		t.Fatal(err)
	}
	return model, res
}

// stopOnAnswer makes the real call and then stops the runner, as a shutdown that
// comes just after the MCP server answered: the call returns its answer only
// once the cancellation reached the call's context.
type stopOnAnswer struct {
	tools.ServerTools
	stop context.CancelFunc
}

func (s stopOnAnswer) Run(ctx context.Context, name string, args json.RawMessage, h tools.Hooks) (tools.ServerResult, error) {
	res, err := s.ServerTools.Run(ctx, name, args, h)
	s.stop()
	<-ctx.Done()
	return res, err
}

// An MCP call whose answer arrives as the server shuts down keeps that answer:
// the RTC ends completed, the next worker resumes the turn with it, and the call
// ran once (not ended as interrupted by the restart).
func TestServerCallAnsweredAtShutdownIsKept(t *testing.T) {
	st := testsvc.SQLite(t)
	countFile := filepath.Join(t.TempDir(), "calls")
	mgr := startMCP(t, countFile)
	model, res := mcpTurn(t, st, `{"name": "test__sleep", "arguments": {"ms": 1, "tag": "once"}}`, "sleep")
	ctx := t.Context()

	// The first life of the server: it stops as the call's answer arrives.
	first, stop := context.WithCancel(ctx)
	r := New(Config{Store: st, Model: model, Live: nopLive{}, ServerTools: stopOnAnswer{mgr, stop}, PollInterval: 10 * time.Millisecond})
	done := make(chan struct{})
	go func() { r.Run(first); close(done) }()
	select {
	case <-done:
	case <-time.After(60 * time.Second):
		t.Fatal("the first runner did not stop")
	}
	var rtcs []protocol.RTC
	if err := st.Read(ctx, func(tx store.Tx) error { var err error; rtcs, err = tx.RTCListByTurn(res.TurnID); return err }); err != nil {
		t.Fatal(err)
	}
	if len(rtcs) != 1 || rtcs[0].Status != protocol.RTCCompleted || string(rtcs[0].Output) != `"slept 1 ms"` {
		t.Fatalf("after the shutdown: %+v", rtcs)
	}

	// The next life resumes the turn with the answer.
	startRunner(t, Config{Store: st, Model: model, ServerTools: mgr, PollInterval: 10 * time.Millisecond})
	waitCompleted(ctx, t, st, res.TurnID)
	var msgs []protocol.Message
	if err := st.Read(ctx, func(tx store.Tx) error {
		var err error
		msgs, err = tx.MessageList(res.SessionID, store.Page{Limit: 100})
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if last := msgs[len(msgs)-1].Text; last != "after: slept 1 ms" {
		t.Fatalf("the model read %q", last)
	}
	data, err := os.ReadFile(countFile)
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(data), "\n"); n != 1 {
		t.Fatalf("the call ran %d times", n)
	}
}

// runMCPTurn runs a one-call MCP turn to its end with a runner of mgr and
// returns the call's RTC.
func runMCPTurn(t *testing.T, mgr tools.ServerTools, call string) protocol.RTC {
	t.Helper()
	st := testsvc.SQLite(t)
	model, res := mcpTurn(t, st, call, "go")
	startRunner(t, Config{Store: st, Model: model, ServerTools: mgr, PollInterval: 10 * time.Millisecond})
	waitCompleted(t.Context(), t, st, res.TurnID)
	var rtcs []protocol.RTC
	if err := st.Read(t.Context(), func(tx store.Tx) error { var err error; rtcs, err = tx.RTCListByTurn(res.TurnID); return err }); err != nil {
		t.Fatal(err)
	}
	if len(rtcs) != 1 {
		t.Fatalf("rtcs %+v", rtcs)
	}
	return rtcs[0]
}

// An MCP server's protocol error of 2 MB is stored cut to the result limit,
// with a note, not whole in the RTC, its updates and the transcript.
func TestServerCallErrorStoredCut(t *testing.T) {
	rc := runMCPTurn(t, startMCP(t, ""), `{"name": "test__fail", "arguments": {"bytes": 2000000}}`)
	limit := protocol.Limits{}.WithDefaults().ToolResultBytes
	if rc.Status != protocol.RTCFailed || len(rc.Error) > limit || !strings.Contains(rc.Error, "eeee… [cut: ") {
		t.Fatalf("%s, %d bytes: %q", rc.Status, len(rc.Error), rc.Error[max(0, len(rc.Error)-60):])
	}
}

// An MCP call that outlives its deadline ends as timeout (the model reads
// "[Tool Timeout]"), not as failed with the context's error.
func TestServerCallPastDeadlineTimesOut(t *testing.T) {
	st := testsvc.SQLite(t)
	model, res := mcpTurn(t, st, `{"name": "test__sleep", "arguments": {"ms": 600000, "tag": "late"}}`, "sleep")
	startRunner(t, Config{Store: st, Model: model, ServerTools: startMCP(t, ""), PollInterval: 10 * time.Millisecond,
		Limits: protocol.Limits{ExecTimeout: 300 * time.Millisecond}})
	waitCompleted(t.Context(), t, st, res.TurnID)
	var rtcs []protocol.RTC
	var msgs []protocol.Message
	if err := st.Read(t.Context(), func(tx store.Tx) error {
		var err error
		if rtcs, err = tx.RTCListByTurn(res.TurnID); err != nil {
			return err
		}
		msgs, err = tx.MessageList(res.SessionID, store.Page{Limit: 100})
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if len(rtcs) != 1 || rtcs[0].Status != protocol.RTCTimeout {
		t.Fatalf("rtcs %+v", rtcs)
	}
	if last := msgs[len(msgs)-1].Text; !strings.HasPrefix(last, "after: [Tool Timeout]") {
		t.Fatalf("the model read %q", last)
	}
}
