package session

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/rtcagent/rtcagent/internal/protocol"
	"github.com/rtcagent/rtcagent/internal/store"
	"github.com/rtcagent/rtcagent/internal/testkit/testsvc"
)

// TestServerCallProgress: a tool that reports its progress 50 times at once
// (test MCP server, a child process) has the last value recorded on its
// executing RTC, in a handful of rtc.updated updates (a write at most once a
// second, the last value winning), and no progress is written once the call
// ended.
func TestServerCallProgress(t *testing.T) {
	st := testsvc.SQLite(t)
	mgr := startMCP(t, filepath.Join(t.TempDir(), "calls"))
	gate := filepath.Join(t.TempDir(), "gate")
	args, _ := json.Marshal(map[string]any{"count": 50, "total": 50, "gate": gate})
	model, res := mcpTurn(t, st, `{"name": "test__progress", "arguments": `+string(args)+`}`, "progress")
	startRunner(t, Config{Store: st, Model: model, ServerTools: mgr, PollInterval: 10 * time.Millisecond})
	ctx := t.Context()

	read := func() protocol.RTC { // the turn's one call, once the model asked for it
		var rtcs []protocol.RTC
		if err := st.Read(ctx, func(tx store.Tx) error { var err error; rtcs, err = tx.RTCListByTurn(res.TurnID); return err }); err != nil {
			t.Fatal(err)
		}
		if len(rtcs) > 1 {
			t.Fatalf("rtcs %+v", rtcs)
		}
		if len(rtcs) == 0 {
			return protocol.RTC{}
		}
		return rtcs[0]
	}
	want := protocol.RTCProgress{Progress: 50, Total: 50, Message: "step 50 of 50"}
	waitFor(t, "the last progress on the executing call", func() bool {
		r := read()
		return r.Status == protocol.RTCExecuting && r.Progress != nil && *r.Progress == want
	})
	if err := os.WriteFile(gate, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	waitCompleted(ctx, t, st, res.TurnID)
	final := read()
	if final.Status != protocol.RTCCompleted || string(final.Output) != `"reported 50 times"` {
		t.Fatalf("the call ended %s %s %q", final.Status, final.Output, final.Error)
	}

	var ups []protocol.Update
	if err := st.Read(ctx, func(tx store.Tx) error {
		var err error
		ups, _, err = tx.UpdateList("u", 0, 10000, 1<<30)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	writes, ended := 0, false
	for _, u := range ups {
		for _, c := range u.Changes {
			if c.Type != protocol.UpdRTCUpdated {
				continue
			}
			var r protocol.RTC
			if err := json.Unmarshal(c.Data, &r); err != nil {
				t.Fatal(err)
			}
			if r.ID != final.ID {
				continue
			}
			if ended {
				t.Fatalf("an update of the call after it ended: %s", c.Data)
			}
			ended = protocol.RTCTerminal(r.Status)
			if r.Status == protocol.RTCExecuting && r.Progress != nil {
				writes++
			}
		}
	}
	// 50 notifications sent at once: the first is written at once, the rest
	// within a few throttle windows, never one write each.
	if writes < 1 || writes > 5 {
		t.Fatalf("%d progress writes for 50 notifications", writes)
	}
	t.Logf("%d progress writes for 50 notifications", writes)
}
