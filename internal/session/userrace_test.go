package session

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"testing"
	"time"

	"github.com/rtcagent/rtcagent/internal/api"
	"github.com/rtcagent/rtcagent/internal/core"
	"github.com/rtcagent/rtcagent/internal/llm"
	"github.com/rtcagent/rtcagent/internal/llm/scripted"
	"github.com/rtcagent/rtcagent/internal/protocol"
	"github.com/rtcagent/rtcagent/internal/store"
	"github.com/rtcagent/rtcagent/internal/testkit/testsvc"
)

var caller = core.Caller{UserID: "u", DeviceID: "d"}

// enteredModel reports each model call on entered, then streams once gate is
// closed.
type enteredModel struct {
	llm.Model
	entered chan struct{}
	gate    chan struct{}
}

func (m enteredModel) Stream(ctx context.Context, req *llm.Request) (llm.Stream, error) {
	select {
	case m.entered <- struct{}{}:
	default:
	}
	select {
	case <-m.gate:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	return m.Model.Stream(ctx, req)
}

func scriptModel(t *testing.T, script string) llm.Model {
	t.Helper()
	m, err := scripted.Parse([]byte(script))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func send(ctx context.Context, t *testing.T, st store.Store, req *protocol.MessageSendRequest) *protocol.MessageSendResult {
	t.Helper()
	var res *protocol.MessageSendResult
	err := st.Write(ctx, func(tx store.Tx) error {
		var err error
		res, err = core.SendMessage(tx, caller, req)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// The calls of a step are planned with the work mode in force when the step
// commits: switching to plan mode while the model streams refuses a write call the
// model asked for, instead of delivering it to the browser unconfirmed.
func TestWorkModeSwitchedDuringAStepApplies(t *testing.T) {
	st := testsvc.SQLite(t)
	m := enteredModel{Model: scriptModel(t, `{"name": "w", "turns": [{"steps": [
		{"tool_calls": [{"name": "write", "arguments": {"path": "/a.txt", "content": "a"}}]},
		{"text": "planned"}]}]}`), entered: make(chan struct{}, 1), gate: make(chan struct{})}
	r, ctx := startRunner(t, Config{Store: st, Model: m, PollInterval: 20 * time.Millisecond})
	st.SetCommitHook(func(c store.Commit) { r.Wake(c.Wake) })

	res := send(ctx, t, st, &protocol.MessageSendRequest{ClientID: "c1", WorkMode: protocol.ModeEdit, Content: protocol.MessageContent{Text: "write a"}})
	select {
	case <-m.entered:
	case <-time.After(10 * time.Second):
		t.Fatal("the model was not called")
	}
	err := st.Write(ctx, func(tx store.Tx) error {
		s, err := tx.SessionGet(res.SessionID)
		if err != nil {
			return err
		}
		s.WorkMode = protocol.ModePlan
		return core.EmitSession(tx, s, protocol.UpdSessionUpdated)
	})
	if err != nil {
		t.Fatal(err)
	}
	close(m.gate)
	var rtcs []protocol.RTC
	waitFor(t, "the write call's rtc", func() bool {
		err := st.Read(ctx, func(tx store.Tx) error { var err error; rtcs, err = tx.RTCListByTurn(res.TurnID); return err })
		return err == nil && len(rtcs) > 0
	})
	if rtcs[0].Status != protocol.RTCRejected {
		t.Fatalf("write call in plan mode: rtc %s (needs confirmation %v), want rejected", rtcs[0].Status, rtcs[0].NeedsConfirmation)
	}
}

// deadStreamer leaves the state of a node that died while streaming a turn's
// message: the turn running and active, the message streaming, its text in the
// partial buffer, the start item still in the inbox and the lease held by the dead
// node until it expires, after ttl. The message is sent in the same transaction:
// a runner that saw the start item before the dead node's lease was taken would
// otherwise start the turn itself first.
func deadStreamer(ctx context.Context, t *testing.T, st store.Store, parts Partials, text string, ttl time.Duration) (*protocol.MessageSendResult, string) {
	t.Helper()
	msgID := core.NewID()
	// The text is buffered before the message exists: a worker that takes the
	// turn over once the lease expires finds it when it closes the message.
	if err := parts.Append(ctx, msgID, 1, text); err != nil {
		t.Fatal(err)
	}
	var res *protocol.MessageSendResult
	err := st.Write(ctx, func(tx store.Tx) error {
		var err error
		res, err = core.SendMessage(tx, caller, &protocol.MessageSendRequest{ClientID: "c1", Content: protocol.MessageContent{Text: "write two files"}})
		if err != nil {
			return err
		}
		s, err := tx.SessionGet(res.SessionID)
		if err != nil {
			return err
		}
		turn, err := tx.TurnGet(res.TurnID)
		if err != nil {
			return err
		}
		turn.Status = protocol.TurnRunning
		if err := core.EmitTurn(tx, turn, protocol.TurnQueued); err != nil {
			return err
		}
		s.ActiveTurnID = turn.ID
		if err := core.EmitSession(tx, s, protocol.UpdSessionUpdated); err != nil {
			return err
		}
		m := &protocol.Message{ID: msgID, SessionID: s.ID, TurnID: turn.ID, UserID: s.UserID, Seq: 2,
			Role: protocol.RoleAssistant, Status: protocol.MessageStreaming}
		if err := core.EmitMessage(tx, m, "", ""); err != nil {
			return err
		}
		_, err = tx.LeaseAcquire(s.ID, "dead-node", ttl)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return res, msgID
}

func call(ctx context.Context, t *testing.T, a *api.API, method string, params any, result any) {
	t.Helper()
	p, _ := json.Marshal(params)
	out, perr := a.Call(ctx, caller, method, p)
	if perr != nil {
		t.Fatalf("%s: %v", method, perr)
	}
	if err := json.Unmarshal(out, result); err != nil {
		t.Fatal(err)
	}
}

// A stop of a turn whose streamer died closes its streaming message as
// interrupted, with the text the message showed, in the stop's own transaction:
// the node that takes the lease afterwards finds the turn ended and has nothing to
// close, and the message never stays streaming.
func TestStopClosesTheMessageOfADeadStreamer(t *testing.T) {
	st := testsvc.SQLite(t)
	parts := NewMemoryPartials()
	r, ctx := startRunner(t, Config{Store: st, Model: helloModel(t), Partials: parts, PollInterval: 20 * time.Millisecond, LeaseTTL: time.Second})
	a := api.New(st, r, protocol.Limits{}, slog.Default())
	res, msgID := deadStreamer(ctx, t, st, parts, "writing two files now ", 300*time.Millisecond)

	var stopped protocol.TurnResult
	call(ctx, t, a, protocol.MethodTurnStop, map[string]string{"session_id": res.SessionID}, &stopped)
	waitFor(t, "the new owner to drop the start item", func() bool {
		err := st.Read(ctx, func(tx store.Tx) error { _, err := tx.InboxNext(res.SessionID); return err })
		return errors.Is(err, store.ErrNotFound)
	})
	var list protocol.MessageListResult
	call(ctx, t, a, protocol.MethodMessageList, map[string]string{"session_id": res.SessionID}, &list)
	for _, m := range list.Messages {
		if m.ID == msgID && (m.Status != protocol.MessageInterrupted || m.Text != "writing two files now ") {
			t.Fatalf("message of the stopped turn: %s %q, want interrupted with the streamed text", m.Status, m.Text)
		}
	}
}

// A read never fills a message of an ended turn from the partial buffer: that text
// reached no client through a Topic update, and the client's state would differ
// from the server's.
func TestReadsMergeNoPartialIntoAnEndedTurn(t *testing.T) {
	st := testsvc.SQLite(t)
	parts := NewMemoryPartials()
	r, ctx := startRunner(t, Config{Store: st, Model: helloModel(t), Partials: parts, PollInterval: time.Hour})
	a := api.New(st, r, protocol.Limits{}, slog.Default())
	res, msgID := deadStreamer(ctx, t, st, parts, "text no update carried", 300*time.Millisecond)
	// A turn that ended without closing its message (data written before the
	// stop closed messages).
	err := st.Write(ctx, func(tx store.Tx) error {
		turn, err := tx.TurnGet(res.TurnID)
		if err != nil {
			return err
		}
		turn.Status = protocol.TurnStopped
		return core.EmitTurn(tx, turn, protocol.TurnRunning)
	})
	if err != nil {
		t.Fatal(err)
	}
	var list protocol.MessageListResult
	call(ctx, t, a, protocol.MethodMessageList, map[string]string{"session_id": res.SessionID}, &list)
	var got protocol.MessageGetResult
	call(ctx, t, a, protocol.MethodMessageGet, map[string]string{"message_id": msgID}, &got)
	for _, m := range append(list.Messages, got.Message) {
		if m.ID == msgID && m.Text != "" {
			t.Fatalf("message of an ended turn read with the partial text %q", m.Text)
		}
	}
}
