package api

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/rtcagent/rtcagent/internal/core"
	"github.com/rtcagent/rtcagent/internal/protocol"
	"github.com/rtcagent/rtcagent/internal/store"
)

// A token that allows only some work modes is enforced by the server: a mode
// it does not allow is refused wherever it is asked for, and a chat left in
// such a mode (set under an earlier token) takes the first allowed mode as
// soon as the restricted user acts on it, so no turn of theirs runs in it.
func TestTokenModesAreEnforced(t *testing.T) {
	a, st := newTestAPI(t)
	ctx := context.Background()
	free := core.Caller{UserID: "alice", DeviceID: "d"}
	held := core.Caller{UserID: "alice", DeviceID: "d", Modes: []string{protocol.ModeManual, protocol.ModePlan}}
	call := func(c core.Caller, method string, req any) (json.RawMessage, *protocol.Error) {
		return callAs(a, c, method, req)
	}
	send := func(c core.Caller, clientID, sid, mode string) (protocol.MessageSendResult, *protocol.Error) {
		var out protocol.MessageSendResult
		res, perr := call(c, protocol.MethodMessageSend, protocol.MessageSendRequest{ClientID: clientID, SessionID: sid, WorkMode: mode,
			Content: protocol.MessageContent{Text: "hi " + clientID}})
		if perr == nil {
			_ = json.Unmarshal(res, &out)
		}
		return out, perr
	}
	modeOf := func(sid string) string {
		var s *protocol.Session
		if err := st.Read(ctx, func(tx store.Tx) error { var err error; s, err = tx.SessionGet(sid); return err }); err != nil {
			t.Fatal(err)
		}
		return s.WorkMode
	}
	forbidden := func(what string, perr *protocol.Error) {
		t.Helper()
		if perr == nil || perr.Code != protocol.CodeForbidden {
			t.Errorf("%s: %v, want forbidden", what, perr)
		}
	}

	if _, perr := send(held, "m1", "", protocol.ModeBypass); perr == nil {
		t.Fatal("a new chat in bypass was created under a token without it")
	} else {
		forbidden("new chat in bypass", perr)
	}
	first, perr := send(held, "m2", "", "")
	if perr != nil {
		t.Fatal(perr)
	}
	if m := modeOf(first.SessionID); m != protocol.ModeManual {
		t.Errorf("a new chat's default (edit) is not allowed: got %s, want the first allowed, manual", m)
	}
	_, perr = call(held, protocol.MethodSessionUpdate, map[string]any{"session_id": first.SessionID, "work_mode": protocol.ModeEdit})
	forbidden("switching to edit", perr)
	if _, perr := call(held, protocol.MethodSessionUpdate, map[string]any{"session_id": first.SessionID, "work_mode": protocol.ModePlan}); perr != nil {
		t.Fatalf("switching to an allowed mode: %v", perr)
	}

	// A chat in bypass from before the restriction.
	old, perr := send(free, "m3", "", protocol.ModeBypass)
	if perr != nil {
		t.Fatal(perr)
	}
	_, perr = send(held, "m4", old.SessionID, protocol.ModeBypass)
	forbidden("a message asking for bypass", perr)
	if _, perr := send(held, "m5", old.SessionID, ""); perr != nil {
		t.Fatal(perr)
	}
	if m := modeOf(old.SessionID); m != protocol.ModeManual {
		t.Errorf("the restricted user's message left the chat in %s, want manual", m)
	}
	// A fork of a chat in a mode the token does not allow starts in an allowed one.
	if _, perr := call(free, protocol.MethodSessionUpdate, map[string]any{"session_id": old.SessionID, "work_mode": protocol.ModeBypass}); perr != nil {
		t.Fatal(perr)
	}
	var msgs []protocol.Message
	if err := st.Read(ctx, func(tx store.Tx) error {
		var err error
		msgs, err = tx.MessageList(old.SessionID, store.Page{Limit: 10})
		return err
	}); err != nil {
		t.Fatal(err)
	}
	res, perr := call(held, protocol.MethodSessionFork, protocol.SessionForkRequest{SessionID: old.SessionID, MessageID: msgs[0].ID, ClientID: "f1"})
	if perr != nil {
		t.Fatal(perr)
	}
	var forked protocol.MessageSendResult
	_ = json.Unmarshal(res, &forked)
	if m := modeOf(forked.SessionID); m != protocol.ModeManual {
		t.Errorf("the fork is in %s, want manual", m)
	}
}
