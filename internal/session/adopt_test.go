package session

import (
	"context"
	"errors"
	"path/filepath"
	"testing"
	"time"

	"github.com/rtcagent/rtcagent/internal/core"
	"github.com/rtcagent/rtcagent/internal/llm/scripted"
	"github.com/rtcagent/rtcagent/internal/protocol"
	"github.com/rtcagent/rtcagent/internal/store"
	"github.com/rtcagent/rtcagent/internal/store/sqlitestore"
)

// A write that gives a session work and adopts it starts the work by itself: the
// runner is never woken and never polls here. An adoption whose transaction rolls
// back leaves no lease and no worker behind, so the next one starts the session.
func TestAdoptStartsWorkWithoutAClaim(t *testing.T) {
	st, err := sqlitestore.Open(context.Background(), filepath.Join(t.TempDir(), "a.db"), sqlitestore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	model, err := scripted.Parse([]byte(`{"name": "hi", "turns": [{"steps": [{"text": "hello"}]}]}`))
	if err != nil {
		t.Fatal(err)
	}
	r := New(Config{Store: st, Model: model, PollInterval: time.Hour, Live: nopLive{}})
	ctx, cancel := context.WithCancel(context.Background())
	ran := make(chan struct{})
	go func() { r.Run(ctx); close(ran) }()
	t.Cleanup(func() { cancel(); <-ran })
	waitRunning(t, r)

	caller := core.Caller{UserID: "u", DeviceID: "d"}
	send := func(clientID string, fail error) (*protocol.MessageSendResult, error) {
		var res *protocol.MessageSendResult
		var adopted func(bool)
		err := st.Write(ctx, func(tx store.Tx) error {
			var err error
			if res, err = core.SendMessage(tx, caller, &protocol.MessageSendRequest{ClientID: clientID, Content: protocol.MessageContent{Text: "hi"}}); err != nil {
				return err
			}
			adopted = r.Adopt(tx)
			if adopted == nil {
				return errors.New("nothing adopted")
			}
			return fail
		})
		adopted(err == nil)
		return res, err
	}

	boom := errors.New("rolled back")
	if _, err := send("c1", boom); !errors.Is(err, boom) {
		t.Fatalf("send: %v", err)
	}
	res, err := send("c2", nil)
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		var turn *protocol.Turn
		if err := st.Read(ctx, func(tx store.Tx) error { turn, err = tx.TurnGet(res.TurnID); return err }); err != nil {
			t.Fatal(err)
		}
		if turn.Status == protocol.TurnCompleted {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the adopted turn is %s after 10 s", turn.Status)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

type nopLive struct{}

func (nopLive) PublishDelta(string, protocol.Delta) error { return nil }

// waitRunning waits until Run accepts adoptions.
func waitRunning(t *testing.T, r *Runner) {
	t.Helper()
	running := func() bool {
		r.mu.Lock()
		defer r.mu.Unlock()
		return r.ctx != nil
	}
	for deadline := time.Now().Add(5 * time.Second); !running(); {
		if time.Now().After(deadline) {
			t.Fatal("the runner did not start")
		}
		time.Sleep(time.Millisecond)
	}
}
