package agui

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/rtcagent/rtcagent/internal/core"
	"github.com/rtcagent/rtcagent/internal/protocol"
	"github.com/rtcagent/rtcagent/internal/store"
	"github.com/rtcagent/rtcagent/internal/testkit/testsvc"
)

// A view's call after its turn (a turn of kind app, with no message) is in
// the thread's snapshot under the message that showed the view, with its
// result, as the run's stream showed it live: the latest, also after more
// of the view's turns than a snapshot reads.
func TestSnapshotListsAViewsCallsAfterItsTurn(t *testing.T) {
	st := testsvc.SQLite(t)
	ctx := context.Background()
	now := time.Now()
	const user, sess = "u", "s1"
	panel := &protocol.RTC{ID: "panel", SessionID: sess, TurnID: "t1", UserID: user, MessageID: "m2", ToolCallID: "c1", Seq: 1,
		ToolName: "shop__panel", Arguments: []byte(`{}`), Status: protocol.RTCCompleted, Executor: protocol.RTCExecutorServer,
		App: "ui://shop/panel", Output: []byte(`"shown"`), CreatedAt: now}
	const between = 2*window + 5 // the view's earlier turns
	view := &protocol.RTC{ID: core.ViewCallRTCID("panel", "k"), SessionID: sess, TurnID: "t2", UserID: user, MessageID: "m2",
		ToolCallID: core.ViewCallID("panel", "k"), Seq: 1, ToolName: "shop__refresh", Arguments: []byte(`{}`),
		Status: protocol.RTCCompleted, Executor: protocol.RTCExecutorServer, Output: []byte(`"refreshed"`), CreatedAt: now}
	if err := st.Write(ctx, func(tx store.Tx) error {
		if err := tx.SessionInsert(&protocol.Session{ID: sess, UserID: user, CreatedAt: now, UpdatedAt: now}); err != nil {
			return err
		}
		for _, tr := range []*protocol.Turn{
			{ID: "t1", SessionID: sess, UserID: user, Seq: 1, UserMessageID: "m1", Status: protocol.TurnCompleted, CreatedAt: now},
			{ID: "t2", SessionID: sess, UserID: user, Seq: 2 + between, Kind: protocol.TurnKindApp, Status: protocol.TurnCompleted, CreatedAt: now},
		} {
			if err := tx.TurnInsert(tr); err != nil {
				return err
			}
		}
		for i := range between {
			tr := &protocol.Turn{ID: fmt.Sprint("a", i), SessionID: sess, UserID: user, Seq: int64(2 + i), Kind: protocol.TurnKindApp,
				Status: protocol.TurnCompleted, CreatedAt: now}
			if err := tx.TurnInsert(tr); err != nil {
				return err
			}
		}
		for _, m := range []*protocol.Message{
			{ID: "m1", SessionID: sess, TurnID: "t1", UserID: user, Seq: 1, Role: protocol.RoleUser, Text: "show the panel", Status: protocol.MessageComplete, CreatedAt: now},
			{ID: "m2", SessionID: sess, TurnID: "t1", UserID: user, Seq: 2, Role: protocol.RoleAssistant, Status: protocol.MessageComplete,
				ToolCalls: []protocol.ToolCall{{ID: "c1", Name: "shop__panel", Arguments: []byte(`{}`)}}, CreatedAt: now},
		} {
			if err := tx.MessageInsert(m, ""); err != nil {
				return err
			}
		}
		if err := tx.RTCInsert(panel); err != nil {
			return err
		}
		return tx.RTCInsert(view)
	}); err != nil {
		t.Fatal(err)
	}
	s, err := readState(ctx, st, user, sess, "")
	if err != nil {
		t.Fatal(err)
	}
	var calls, results []string
	for _, m := range s.snapshot() {
		for _, c := range m.ToolCalls {
			calls = append(calls, c.ID)
		}
		if m.Role == "tool" {
			results = append(results, m.Content)
		}
	}
	if len(calls) != 2 || calls[0] != panel.ID || calls[1] != view.ID || len(results) != 2 || results[1] != "refreshed" {
		t.Fatalf("the snapshot's calls %v and results %v, want the panel's and its view's", calls, results)
	}
}
