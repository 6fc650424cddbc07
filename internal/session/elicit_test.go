package session

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/rtcagent/rtcagent/internal/lifecycle"
	"github.com/rtcagent/rtcagent/internal/protocol"
	"github.com/rtcagent/rtcagent/internal/store"
	"github.com/rtcagent/rtcagent/internal/testkit/testsvc"
	"github.com/rtcagent/rtcagent/internal/tools"
)

// A worker that shuts down while an MCP server's question (an elicitation RTC) is
// open ends the question, so nothing is left pending; the next worker ends the
// cut-off call as interrupted and the turn completes.
func TestElicitationEndedAtShutdown(t *testing.T) {
	st := testsvc.SQLite(t)
	mgr := startMCP(t, filepath.Join(t.TempDir(), "calls"))
	model, res := mcpTurn(t, st, `{"name": "test__ask", "arguments": {"question": "Which colour?"}}`, "ask")
	ctx := t.Context()
	rtcs := func() []protocol.RTC {
		var list []protocol.RTC
		if err := st.Read(ctx, func(tx store.Tx) error { var err error; list, err = tx.RTCListByTurn(res.TurnID); return err }); err != nil {
			t.Fatal(err)
		}
		return list
	}

	first, stop := context.WithCancel(ctx)
	r := New(Config{Store: st, Model: model, Live: nopLive{}, ServerTools: mgr, PollInterval: 10 * time.Millisecond})
	done := make(chan struct{})
	go func() { r.Run(first); close(done) }()
	deadline := time.Now().Add(60 * time.Second)
	for {
		if l := rtcs(); len(l) == 2 && l[1].ToolName == tools.Elicitation && l[1].Status == protocol.RTCPending {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no question: %+v", rtcs())
		}
		time.Sleep(20 * time.Millisecond)
	}
	stop()
	select {
	case <-done:
	case <-time.After(60 * time.Second):
		t.Fatal("the runner did not stop")
	}
	l := rtcs()
	if l[0].Status != protocol.RTCExecuting || l[1].Status != protocol.RTCFailed || l[1].ToolCallID != lifecycle.ElicitationCallID(l[0].ID, 1) {
		t.Fatalf("after the shutdown: call %s, question %s %q", l[0].Status, l[1].Status, l[1].ToolCallID)
	}

	startRunner(t, Config{Store: st, Model: model, ServerTools: mgr, PollInterval: 10 * time.Millisecond})
	waitCompleted(ctx, t, st, res.TurnID)
	if l := rtcs(); l[0].Status != protocol.RTCFailed || l[0].Error != InterruptedCall {
		t.Fatalf("the cut-off call: %s %q", l[0].Status, l[0].Error)
	}
}
