package core_test

import (
	"testing"

	"github.com/rtcagent/rtcagent/internal/core"
	"github.com/rtcagent/rtcagent/internal/lifecycle"
	"github.com/rtcagent/rtcagent/internal/llm"
	"github.com/rtcagent/rtcagent/internal/protocol"
	"github.com/rtcagent/rtcagent/internal/store"
	"github.com/rtcagent/rtcagent/internal/testkit/testsvc"
	"github.com/rtcagent/rtcagent/internal/tools"
)

// A fork from a message sent with a tool view's context sends it with the
// context of that view's copy in the fork; a context that names an unknown
// call, one of another chat, one named twice or a call whose view never
// showed is refused.
func TestForkCarriesViewContexts(t *testing.T) {
	st := testsvc.SQLite(t)
	sess, _, r := panelShownIn(t, st, protocol.TurnCompleted)
	p := *r
	p.ID, p.ToolCallID, p.Seq, p.Status, p.Output = core.NewID(), "c2", 2, protocol.RTCPending, nil
	rtcID, pendingID := r.ID, p.ID
	write(t, st, func(tx store.Tx) error { return tx.RTCInsert(&p) })
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

// A message sent with the context of a view whose call was running, and
// that call then timed out: the message can still be forked.
func TestForkAfterTheViewsCallTimedOut(t *testing.T) {
	st := testsvc.SQLite(t)
	var sess, rtcID, turnID string
	write(t, st, func(tx store.Tx) error {
		res, err := core.SendMessage(tx, caller, &protocol.MessageSendRequest{ClientID: "m0", Content: protocol.MessageContent{Text: "show the panel"}})
		if err != nil {
			return err
		}
		sess, turnID = res.SessionID, res.TurnID
		r := panelCall(sess, turnID, protocol.RTCExecuting)
		rtcID = r.ID
		return tx.RTCInsert(r)
	})
	// While the call runs (its view shown), the person's next message goes with the view's context.
	var sent *protocol.MessageSendResult
	write(t, st, func(tx store.Tx) (err error) {
		sent, err = core.SendMessage(tx, caller, &protocol.MessageSendRequest{ClientID: "m1", SessionID: sess,
			Content: protocol.MessageContent{Text: "what now"}, Context: &protocol.MessageContext{Views: []protocol.ViewContext{{RTCID: rtcID, Text: "3 figures"}}}})
		return err
	})
	// The call times out; its turn ends.
	write(t, st, func(tx store.Tx) error {
		r, err := tx.RTCGet(rtcID)
		if err != nil {
			return err
		}
		prev := r.Status
		r.Status, r.Error = protocol.RTCTimeout, "no result before the deadline"
		if err := lifecycle.EmitRTC(tx, r, prev); err != nil {
			return err
		}
		tr, err := tx.TurnGet(turnID)
		if err != nil {
			return err
		}
		was := tr.Status
		tr.Status = protocol.TurnCompleted
		return core.EmitTurn(tx, tr, was)
	})
	err := st.Write(ctx, func(tx store.Tx) error {
		_, err := core.ForkSession(tx, caller, &protocol.SessionForkRequest{ClientID: "f", SessionID: sess, MessageID: sent.MessageID})
		return err
	})
	if err != nil {
		t.Fatalf("fork of a message whose view's call timed out later: %v", err)
	}
}

// A fork of a fork, from the copy of a message sent with a view's context,
// still carries that context (naming the second fork's copy of the call).
func TestForkOfAForkKeepsViewContexts(t *testing.T) {
	st := testsvc.SQLite(t)
	sess, _, panel := panelShownIn(t, st, protocol.TurnCompleted)
	rtcID := panel.ID
	// m1 goes with the view's context; its turn ends; m2 follows.
	var m1 *protocol.MessageSendResult
	write(t, st, func(tx store.Tx) (err error) {
		m1, err = core.SendMessage(tx, caller, &protocol.MessageSendRequest{ClientID: "m1", SessionID: sess,
			Content: protocol.MessageContent{Text: "what now"}, Context: &protocol.MessageContext{Views: []protocol.ViewContext{{RTCID: rtcID, Text: "3 figures"}}}})
		if err != nil {
			return err
		}
		tr, err := tx.TurnGet(m1.TurnID)
		if err != nil {
			return err
		}
		was := tr.Status
		tr.Status = protocol.TurnCompleted
		return core.EmitTurn(tx, tr, was)
	})
	var m2 *protocol.MessageSendResult
	write(t, st, func(tx store.Tx) (err error) {
		m2, err = core.SendMessage(tx, caller, &protocol.MessageSendRequest{ClientID: "m2", SessionID: sess, Content: protocol.MessageContent{Text: "and then"}})
		return err
	})
	// Fork at m2: m1 is copied into the fork.
	var f1 *protocol.MessageSendResult
	write(t, st, func(tx store.Tx) (err error) {
		f1, err = core.ForkSession(tx, caller, &protocol.SessionForkRequest{ClientID: "f1", SessionID: sess, MessageID: m2.MessageID})
		return err
	})
	var m1copy string
	write(t, st, func(tx store.Tx) error {
		ms, err := tx.MessageList(f1.SessionID, store.Page{Limit: 100})
		if err != nil {
			return err
		}
		for _, m := range ms {
			if m.Text == "what now" {
				m1copy = m.ID
				if m.Context != nil && len(m.Context.Views) == 1 {
					r, err := tx.RTCGet(m.Context.Views[0].RTCID)
					if err != nil || r.SessionID != f1.SessionID {
						t.Errorf("the copy of m1 names a call of another chat: %v %v", r.SessionID, err)
					}
				}
			}
		}
		return nil
	})
	// Fork the fork at the copy of m1.
	var f2 *protocol.MessageSendResult
	write(t, st, func(tx store.Tx) (err error) {
		f2, err = core.ForkSession(tx, caller, &protocol.SessionForkRequest{ClientID: "f2", SessionID: f1.SessionID, MessageID: m1copy})
		return err
	})
	write(t, st, func(tx store.Tx) error {
		m, err := tx.MessageGet(f2.MessageID)
		if err != nil {
			return err
		}
		if m.Context == nil || len(m.Context.Views) != 1 {
			t.Errorf("the fork of the fork lost the view's context: %+v", m.Context)
		}
		return nil
	})
}

// panelCall is the first call of turn turnID of session sess, of an MCP tool
// with a view, in status (with its output once completed).
func panelCall(sess, turnID, status string) *protocol.RTC {
	r := &protocol.RTC{ID: core.NewID(), SessionID: sess, TurnID: turnID, UserID: caller.UserID, ToolCallID: "c1", Seq: 1, Step: 1,
		ToolName: "test__panel", App: "/mcp-apps/test__panel", Executor: protocol.RTCExecutorServer, Status: status}
	if status == protocol.RTCCompleted {
		r.Output = []byte(`"ok"`)
	}
	return r
}

// A fork copies the turn a view's call ran in after the view's own turn
// ended (kind app, no message of its own): the copy keeps its kind and its
// call, whose message is the copy of the view's call's message.
func TestForkCopiesAViewsOwnTurn(t *testing.T) {
	st := testsvc.SQLite(t)
	sess, msg, panel := viewCalledAfterItsTurn(t, st, protocol.TurnCompleted)
	var sent, fork *protocol.MessageSendResult
	write(t, st, func(tx store.Tx) (err error) {
		sent, err = core.SendMessage(tx, caller, &protocol.MessageSendRequest{ClientID: "m1", SessionID: sess, Content: protocol.MessageContent{Text: "and now"}})
		return err
	})
	write(t, st, func(tx store.Tx) (err error) {
		fork, err = core.ForkSession(tx, caller, &protocol.SessionForkRequest{ClientID: "f", SessionID: sess, MessageID: sent.MessageID})
		return err
	})
	write(t, st, func(tx store.Tx) error {
		turns, err := tx.TurnList(fork.SessionID, store.Page{Limit: 10})
		if err != nil {
			return err
		}
		var app *protocol.Turn
		for i := range turns {
			if turns[i].Kind == protocol.TurnKindApp {
				app = &turns[i]
			}
		}
		if app == nil || app.Status != protocol.TurnCompleted {
			t.Fatalf("the fork's turns: %+v", turns)
		}
		rtcs, err := tx.RTCListByTurn(app.ID)
		if err != nil {
			return err
		}
		if len(rtcs) != 1 || rtcs[0].Status != protocol.RTCCompleted || rtcs[0].MessageID == msg || rtcs[0].MessageID == "" {
			t.Fatalf("the copy of the view's call: %+v", rtcs)
		}
		// It names the copy of the panel's call, and a repeat of its request
		// from the copy's view finds it.
		all, err := tx.RTCListBySession(fork.SessionID, "", 10)
		if err != nil {
			return err
		}
		var copied string
		for _, r := range all {
			if r.ToolName == panel.ToolName && r.ID != rtcs[0].ID {
				copied = r.ID
			}
		}
		if copied == "" || rtcs[0].ToolCallID != core.ViewCallID(copied, "k") || rtcs[0].ID != core.ViewCallRTCID(copied, "k") {
			t.Fatalf("the copy of the view's call %+v names %q, the panel's copy is %q", rtcs[0], rtcs[0].ToolCallID, copied)
		}
		return nil
	})
}

// A stopped turn whose view called after it can still be retried: the view's
// calls' own turns leave the conversation as it was.
func TestRetryPassesOverAViewsOwnTurns(t *testing.T) {
	st := testsvc.SQLite(t)
	sess, _, panel := viewCalledAfterItsTurn(t, st, protocol.TurnStopped)
	write(t, st, func(tx store.Tx) error {
		res, err := core.RetryTurn(tx, caller, &protocol.TurnRetryRequest{SessionID: sess, TurnID: panel.TurnID, ClientID: "r"})
		if err != nil {
			t.Fatalf("the retry after a view's call: %v", err)
		}
		tr, err := tx.TurnGet(res.TurnID)
		if err == nil && (tr.RetryOf != panel.TurnID || tr.Status != protocol.TurnQueued) {
			t.Fatalf("the retry: %+v", tr)
		}
		return err
	})
}

// viewCalledAfterItsTurn writes a session whose first turn showed a panel and
// ended in status, then a call of the panel's view after it, which runs in a
// turn of its own and ends (with that turn, in the same transaction). It
// returns the session, the first turn's message and the panel's call.
func viewCalledAfterItsTurn(t *testing.T, st store.Store, status string) (sess, msg string, panel *protocol.RTC) {
	t.Helper()
	sess, msg, panel = panelShownIn(t, st, status)
	var call *protocol.RTC
	write(t, st, func(tx store.Tx) (err error) {
		read := tools.Tool{Kind: tools.KindRead, OnServer: true, Spec: llm.ToolSpec{Name: "test__refresh"}}
		call, err = lifecycle.CallFromView(tx, caller, lifecycle.ViewCall{ParentID: panel.ID, ClientID: "k", Tool: "refresh", Args: []byte(`{}`),
			ID: core.ViewCallRTCID(panel.ID, "k"), Lookup: func(string) (tools.Tool, bool) { return read, true }})
		return err
	})
	if call.TurnID == panel.TurnID {
		t.Fatal("the view's call after its turn is of that turn")
	}
	write(t, st, func(tx store.Tx) error {
		if _, err := lifecycle.EndServerRTC(tx, call.ID, tools.ServerResult{OK: true, Output: []byte(`"ok"`)}); err != nil {
			return err
		}
		tr, err := tx.TurnGet(call.TurnID)
		if err == nil && (tr.Status != protocol.TurnCompleted || tr.Kind != protocol.TurnKindApp) {
			t.Fatalf("the view's call's turn after the call ended: %+v", tr)
		}
		s, err := tx.SessionGet(sess)
		if err == nil && s.ActiveTurnID != "" {
			t.Fatalf("the chat still has an active turn: %q", s.ActiveTurnID)
		}
		return err
	})
	return sess, msg, panel
}

// panelShownIn writes a session whose first turn, ended in status, showed a
// panel (its completed call, of the turn's message). It returns the session,
// that message and the panel's call.
func panelShownIn(t *testing.T, st store.Store, status string) (sess, msg string, panel *protocol.RTC) {
	t.Helper()
	write(t, st, func(tx store.Tx) error {
		res, err := core.SendMessage(tx, caller, &protocol.MessageSendRequest{ClientID: "m0", Content: protocol.MessageContent{Text: "show the panel"}})
		if err != nil {
			return err
		}
		sess, msg = res.SessionID, res.MessageID
		tr, err := tx.TurnGet(res.TurnID)
		if err != nil {
			return err
		}
		panel = panelCall(sess, tr.ID, protocol.RTCCompleted)
		panel.MessageID = msg
		if err := tx.RTCInsert(panel); err != nil {
			return err
		}
		tr.Status = status
		return core.EmitTurn(tx, tr, protocol.TurnQueued)
	})
	return sess, msg, panel
}
