package session

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/rtcagent/rtcagent/internal/core"
	"github.com/rtcagent/rtcagent/internal/lifecycle"
	"github.com/rtcagent/rtcagent/internal/llm/scripted"
	"github.com/rtcagent/rtcagent/internal/protocol"
	"github.com/rtcagent/rtcagent/internal/store"
)

// A turn takes one step for its step's calls. A view's call that ends while
// the turn waits to resume queues a second resume (endRTC cannot tell the
// first is queued); by the time it is taken the next step's calls are open,
// and it is dropped rather than running a step beside them. A view's call
// still open holds back no resume: it runs beside the steps. The second
// resume is queued by hand here, on both stores; e2e's
// TestMCPViewCallRefusedBeforeTheResume gets it from a real view's call.
func TestSecondResumeFindsTheNextStepsCalls(t *testing.T) {
	eachStore(t, func(t *testing.T, open func(*testing.T) store.Store) {
		ls := func() scripted.Step { return scripted.Step{ToolCalls: []scripted.ToolCall{{Name: "ls"}}} }
		model, err := scripted.New(scripted.Script{Name: "twice", Turns: []scripted.Turn{{Steps: []scripted.Step{ls(), ls(), {Text: "done"}}}}})
		if err != nil {
			t.Fatal(err)
		}
		st := open(t)
		ctx := t.Context()
		res := send(ctx, t, st, &protocol.MessageSendRequest{ClientID: "c1", WorkMode: protocol.ModeBypass, Content: protocol.MessageContent{Text: "go"}})
		calls := func() []protocol.RTC {
			var rtcs []protocol.RTC
			if err := st.Read(ctx, func(tx store.Tx) error { var err error; rtcs, err = tx.RTCListByTurn(res.TurnID); return err }); err != nil {
				t.Fatal(err)
			}
			return rtcs
		}
		pending := func(n int) func() bool {
			return func() bool { c := calls(); return len(c) == n && c[n-1].Status == protocol.RTCPending }
		}

		// The first step's call is delivered; its worker stops.
		first := New(Config{Store: st, Model: model, PollInterval: 10 * time.Millisecond, Live: nopLive{}})
		runCtx, stop := context.WithCancel(ctx)
		ran := make(chan struct{})
		go func() { first.Run(runCtx); close(ran) }()
		waitFor(t, "the first call", pending(1))
		stop()
		<-ran

		// Its result queues the resume; a view's call of the turn that
		// ended meanwhile queued another, and a second view's call is open.
		first0 := calls()[0]
		if err := st.Write(ctx, func(tx store.Tx) error {
			if _, err := lifecycle.SubmitResult(tx, caller, &protocol.RTCSubmitResultRequest{RTCID: first0.ID, ClientID: "r1",
				OK: true, Output: json.RawMessage(`"a.txt"`)}); err != nil {
				return err
			}
			view := &protocol.RTC{ID: "view-call", SessionID: res.SessionID, TurnID: res.TurnID, UserID: caller.UserID, Seq: 99,
				ToolCallID: core.ViewCallID(first0.ID, "k"), ToolName: "panel__refresh", Executor: protocol.RTCExecutorServer,
				Status: protocol.RTCPending, Arguments: json.RawMessage(`{}`)}
			if err := tx.RTCInsert(view); err != nil {
				return err
			}
			return tx.InboxInsert(&store.InboxItem{SessionID: res.SessionID, Kind: core.KindTurnResume, TurnID: res.TurnID})
		}); err != nil {
			t.Fatal(err)
		}

		startRunner(t, Config{Store: st, Model: model, PollInterval: 10 * time.Millisecond})
		pending = func(n int) func() bool {
			return func() bool {
				var step []protocol.RTC
				for _, c := range calls() {
					if !core.IsViewCall(&c) {
						step = append(step, c)
					}
				}
				return len(step) == n && step[n-1].Status == protocol.RTCPending
			}
		}
		waitFor(t, "the second call", pending(2))
		waitFor(t, "the session's inbox to empty", func() bool {
			err := st.Read(ctx, func(tx store.Tx) error { _, err := tx.InboxNext(res.SessionID); return err })
			return errors.Is(err, store.ErrNotFound)
		})
		var turn *protocol.Turn
		if err := st.Read(ctx, func(tx store.Tx) error { var err error; turn, err = tx.TurnGet(res.TurnID); return err }); err != nil {
			t.Fatal(err)
		}
		c := calls()
		if turn.Status != protocol.TurnWaiting || len(c) != 3 || c[2].Status != protocol.RTCPending || c[1].Status != protocol.RTCPending ||
			len(model.Requests()) != 2 {
			t.Fatalf("turn %s with calls %v after %d model steps; want it waiting for its second call and the view's after 2",
				turn.Status, statuses(c), len(model.Requests()))
		}
	})
}

func statuses(rtcs []protocol.RTC) []string {
	out := make([]string, len(rtcs))
	for i, r := range rtcs {
		out[i] = r.Status
	}
	return out
}
