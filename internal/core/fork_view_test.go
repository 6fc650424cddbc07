package core_test

import (
	"testing"

	"github.com/rtcagent/rtcagent/internal/core"
	"github.com/rtcagent/rtcagent/internal/protocol"
	"github.com/rtcagent/rtcagent/internal/store"
	"github.com/rtcagent/rtcagent/internal/testkit/testsvc"
)

// A fork from a message sent with a tool view's context sends it with the
// context of that view's copy in the fork; a context that names an unknown
// call, one of another chat, one named twice or a call whose view never
// showed is refused.
func TestForkCarriesViewContexts(t *testing.T) {
	st := testsvc.SQLite(t)
	var sess, rtcID, pendingID string
	write(t, st, func(tx store.Tx) error {
		res, err := core.SendMessage(tx, caller, &protocol.MessageSendRequest{ClientID: "m0", Content: protocol.MessageContent{Text: "show the panel"}})
		if err != nil {
			return err
		}
		sess = res.SessionID
		tr, err := tx.TurnGet(res.TurnID)
		if err != nil {
			return err
		}
		r := &protocol.RTC{ID: core.NewID(), SessionID: sess, TurnID: tr.ID, UserID: caller.UserID, ToolCallID: "c1", Seq: 1, Step: 1,
			ToolName: "test__panel", App: "/mcp-apps/test__panel", Executor: protocol.RTCExecutorServer, Status: protocol.RTCCompleted, Output: []byte(`"ok"`)}
		p := *r
		p.ID, p.ToolCallID, p.Seq, p.Status, p.Output = core.NewID(), "c2", 2, protocol.RTCPending, nil
		rtcID, pendingID = r.ID, p.ID
		if err := tx.RTCInsert(r); err != nil {
			return err
		}
		if err := tx.RTCInsert(&p); err != nil {
			return err
		}
		tr.Status = protocol.TurnCompleted
		return core.EmitTurn(tx, tr, protocol.TurnQueued)
	})
	send := func(clientID, session string, views ...protocol.ViewContext) (*protocol.MessageSendResult, error) {
		var res *protocol.MessageSendResult
		err := st.Write(ctx, func(tx store.Tx) (err error) {
			res, err = core.SendMessage(tx, caller, &protocol.MessageSendRequest{ClientID: clientID, SessionID: session,
				Content: protocol.MessageContent{Text: "what now"}, Context: &protocol.MessageContext{Views: views}})
			return err
		})
		return res, err
	}
	for name, views := range map[string][]protocol.ViewContext{
		"an unknown call":       {{RTCID: "nope", Text: "x"}},
		"a view named twice":    {{RTCID: rtcID, Text: "x"}, {RTCID: rtcID, Text: "y"}},
		"a view that never ran": {{RTCID: pendingID, Text: "x"}},
	} {
		if _, err := send("bad "+name, sess, views...); protocol.CodeOf(err) != protocol.CodeInvalidArgument {
			t.Errorf("%s: %v", name, err)
		}
	}
	if _, err := send("another chat", "", protocol.ViewContext{RTCID: rtcID, Text: "x"}); protocol.CodeOf(err) != protocol.CodeInvalidArgument {
		t.Errorf("a view of another chat: %v", err)
	}
	sent, err := send("m1", sess, protocol.ViewContext{RTCID: rtcID, Text: "3 figures"})
	if err != nil {
		t.Fatal(err)
	}
	var fork *protocol.MessageSendResult
	write(t, st, func(tx store.Tx) (err error) {
		fork, err = core.ForkSession(tx, caller, &protocol.SessionForkRequest{ClientID: "f", SessionID: sess, MessageID: sent.MessageID})
		return err
	})
	write(t, st, func(tx store.Tx) error {
		m, err := tx.MessageGet(fork.MessageID)
		if err != nil {
			return err
		}
		if m.Context == nil || len(m.Context.Views) != 1 || m.Context.Views[0].Text != "3 figures" || m.Context.Views[0].Tool != "test__panel" {
			t.Fatalf("the fork's message context: %+v", m.Context)
		}
		r, err := tx.RTCGet(m.Context.Views[0].RTCID)
		if err != nil || r.SessionID != fork.SessionID || r.ToolName != "test__panel" {
			t.Fatalf("the view the fork's context names: %+v %v", r, err)
		}
		return nil
	})
}
