package session

import (
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/rtcagent/rtcagent/internal/core"
	"github.com/rtcagent/rtcagent/internal/protocol"
	"github.com/rtcagent/rtcagent/internal/store"
	"github.com/rtcagent/rtcagent/internal/testkit/testsvc"
)

// rtcagent_sessions_active counts the sessions a runner works on, against
// rtcagent_sessions_active_limit: an operator sees a node at its limit.
func TestActiveSessionsMetrics(t *testing.T) {
	st := testsvc.SQLite(t)
	gate := make(chan struct{})
	entered := make(chan struct{}, 8)
	base := testutil.ToFloat64(metricActive)
	_, ctx := startRunner(t, Config{Store: st, Model: gatedModel{helloModel(t), gate, entered}, PollInterval: 10 * time.Millisecond, Concurrency: 1})
	if got := testutil.ToFloat64(metricActiveLimit); got != 1 {
		t.Fatalf("limit %v, want 1", got)
	}
	var turn string
	if err := st.Write(ctx, func(tx store.Tx) error {
		res, err := core.SendMessage(tx, core.Caller{UserID: "u1", DeviceID: "d"}, &protocol.MessageSendRequest{ClientID: "c1", Content: protocol.MessageContent{Text: "hi"}})
		turn = res.TurnID
		return err
	}); err != nil {
		t.Fatal(err)
	}
	<-entered // its step holds the only slot
	if got := testutil.ToFloat64(metricActive) - base; got != 1 {
		t.Fatalf("%v sessions active while one step runs", got)
	}
	close(gate)
	waitCompleted(ctx, t, st, turn)
	waitFor(t, "the slot to free", func() bool { return testutil.ToFloat64(metricActive) == base })
}
