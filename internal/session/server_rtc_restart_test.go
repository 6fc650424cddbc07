package session

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rtcagent/rtcagent/internal/mcptools"
	"github.com/rtcagent/rtcagent/internal/protocol"
	"github.com/rtcagent/rtcagent/internal/store"
	"github.com/rtcagent/rtcagent/internal/testkit/mcptest"
	"github.com/rtcagent/rtcagent/internal/testkit/testsvc"
)

// logSignal closes ch at the first log record whose message starts with prefix.
type logSignal struct {
	prefix string
	once   *sync.Once
	ch     chan struct{}
}

func (h logSignal) Enabled(context.Context, slog.Level) bool { return true }
func (h logSignal) WithAttrs([]slog.Attr) slog.Handler       { return h }
func (h logSignal) WithGroup(string) slog.Handler            { return h }

func (h logSignal) Handle(_ context.Context, rec slog.Record) error {
	if strings.HasPrefix(rec.Message, h.prefix) {
		h.once.Do(func() { close(h.ch) })
	}
	return nil
}

// An idempotent call cut off by a restart runs again once its MCP server has
// listed its tools, though that server starts only after the next worker found
// the call (a slow npx start): the worker waits, within the call's deadline,
// instead of failing the call as interrupted.
func TestServerCallRerunWaitsForSlowServer(t *testing.T) {
	st := testsvc.SQLite(t)
	countFile := filepath.Join(t.TempDir(), "calls")
	calls := func() int { data, _ := os.ReadFile(countFile); return strings.Count(string(data), "\n") }
	model, res := mcpTurn(t, st, `{"name": "test__idle", "arguments": {"ms": 600000, "tag": "once"}}`, "idle")

	// The first life: the call starts, and the worker stops while it runs.
	first, stop := context.WithCancel(t.Context())
	r := New(Config{Store: st, Model: model, Live: nopLive{}, ServerTools: startMCP(t, countFile), PollInterval: 10 * time.Millisecond})
	done := make(chan struct{})
	go func() { r.Run(first); close(done) }()
	waitFor(t, "the call to start", func() bool { return calls() == 1 })
	stop()
	<-done

	// The next life: its MCP server serves only once the gate file exists.
	gate := filepath.Join(t.TempDir(), "gate")
	mgr := mcptools.Start(&mcptools.Config{Servers: []mcptools.Server{{Name: "test", Command: mcptest.Binary(t),
		Args: []string{"-count", countFile, "-wait", gate}}}}, mcptools.Options{MinBackoff: 50 * time.Millisecond})
	t.Cleanup(mgr.Close)
	waiting := logSignal{prefix: "a server call was cut off by a restart", once: new(sync.Once), ch: make(chan struct{})}
	startRunner(t, Config{Store: st, Model: model, ServerTools: mgr, Logger: slog.New(waiting), PollInterval: 10 * time.Millisecond})
	rtc := func() protocol.RTC {
		var rtcs []protocol.RTC
		if err := st.Read(t.Context(), func(tx store.Tx) error { var err error; rtcs, err = tx.RTCListByTurn(res.TurnID); return err }); err != nil || len(rtcs) != 1 {
			t.Fatalf("rtcs %+v: %v", rtcs, err)
		}
		return rtcs[0]
	}
	waitFor(t, "the worker to find the call", func() bool {
		select {
		case <-waiting.ch:
			return true
		default:
		}
		if rc := rtc(); protocol.RTCTerminal(rc.Status) {
			t.Fatalf("the call was decided without its server: %s %q", rc.Status, rc.Error)
		}
		return false
	})
	if err := os.WriteFile(gate, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	waitCompleted(t.Context(), t, st, res.TurnID)
	if rc := rtc(); rc.Status != protocol.RTCCompleted || string(rc.Output) != `"idle done"` {
		t.Fatalf("rtc %s %q %s", rc.Status, rc.Error, rc.Output)
	}
	if n := calls(); n != 2 {
		t.Fatalf("the call ran %d times, want 2 (once cut off, once again)", n)
	}
}
