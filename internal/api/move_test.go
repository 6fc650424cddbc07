package api

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/rtcagent/rtcagent/internal/core"
	"github.com/rtcagent/rtcagent/internal/protocol"
	"github.com/rtcagent/rtcagent/internal/store"
)

// "Continue here": another device of the same user takes a session over once
// no browser call runs on the first; then it sends and the first one cannot,
// and the calls not started yet answer to it alone.
func TestMoveSessionToAnotherDevice(t *testing.T) {
	a, st := newTestAPI(t)
	ctx := context.Background()
	laptop := core.Caller{UserID: "alice", DeviceID: "laptop"}
	phone := core.Caller{UserID: "alice", DeviceID: "phone"}
	call := func(c core.Caller, method string, req any) (json.RawMessage, *protocol.Error) {
		return callAs(a, c, method, req)
	}
	send := func(c core.Caller, clientID, sid string) *protocol.Error {
		_, perr := call(c, protocol.MethodMessageSend, protocol.MessageSendRequest{ClientID: clientID, SessionID: sid, Content: protocol.MessageContent{Text: "hi"}})
		return perr
	}
	res, perr := call(laptop, protocol.MethodMessageSend, protocol.MessageSendRequest{ClientID: "m1", Content: protocol.MessageContent{Text: "plan a trip"}})
	if perr != nil {
		t.Fatal(perr)
	}
	var sent protocol.MessageSendResult
	_ = json.Unmarshal(res, &sent)
	sid := sent.SessionID
	if perr := send(phone, "m2", sid); perr == nil || perr.Code != protocol.CodeForbidden || !strings.Contains(perr.Message, protocol.MethodSessionMove) {
		t.Fatalf("the phone sending to the laptop's chat: %v, want forbidden naming %s", perr, protocol.MethodSessionMove)
	}
	// The turn runs a browser call on the laptop, and has one queued behind it.
	running := &protocol.RTC{ID: "r1", SessionID: sid, TurnID: sent.TurnID, UserID: "alice", Seq: 1, ToolName: "write", Status: protocol.RTCExecuting}
	queued := &protocol.RTC{ID: "r2", SessionID: sid, TurnID: sent.TurnID, UserID: "alice", Seq: 2, ToolName: "ls", Status: protocol.RTCPending}
	write := func(fn func(tx store.Tx) error) {
		t.Helper()
		if err := st.Write(ctx, fn); err != nil {
			t.Fatal(err)
		}
	}
	write(func(tx store.Tx) error {
		s, err := tx.SessionGet(sid)
		if err != nil {
			return err
		}
		s.ActiveTurnID = sent.TurnID
		if err := tx.SessionUpdate(s); err != nil {
			return err
		}
		if err := tx.RTCInsert(running); err != nil {
			return err
		}
		return tx.RTCInsert(queued)
	})
	if _, perr := call(phone, protocol.MethodSessionMove, protocol.IDRequest{SessionID: sid}); perr == nil || perr.Code != protocol.CodeConflict {
		t.Fatalf("moving while the laptop runs a call: %v, want conflict", perr)
	}
	write(func(tx store.Tx) error {
		r := *running
		r.Status = protocol.RTCCompleted
		return tx.RTCUpdate(&r, protocol.RTCExecuting)
	})
	res, perr = call(phone, protocol.MethodSessionMove, protocol.IDRequest{SessionID: sid})
	if perr != nil {
		t.Fatalf("moving once the call ended: %v", perr)
	}
	var moved protocol.SessionResult
	_ = json.Unmarshal(res, &moved)
	if moved.Session.DeviceID != "phone" {
		t.Fatalf("the session is on %q, want phone", moved.Session.DeviceID)
	}
	if _, perr := call(phone, protocol.MethodSessionMove, protocol.IDRequest{SessionID: sid}); perr != nil {
		t.Fatalf("moving again to the same device: %v", perr)
	}
	if perr := send(laptop, "m3", sid); perr == nil || perr.Code != protocol.CodeForbidden {
		t.Fatalf("the laptop sending after the move: %v, want forbidden", perr)
	}
	// The queued call now answers to the phone alone.
	result := protocol.RTCSubmitResultRequest{RTCID: "r2", ClientID: "c1", OK: true, Output: json.RawMessage(`"[]"`)}
	if _, perr := call(laptop, protocol.MethodRTCSubmitResult, result); perr == nil || perr.Code != protocol.CodeForbidden {
		t.Fatalf("the laptop answering a call of the moved chat: %v, want forbidden", perr)
	}
	if _, perr := call(phone, protocol.MethodRTCSubmitResult, result); perr != nil {
		t.Fatalf("the phone answering it: %v", perr)
	}
	if perr := send(phone, "m4", sid); perr != nil {
		t.Fatalf("the phone sending after the move: %v", perr)
	}
	// Another user's device cannot take it.
	if _, perr := call(core.Caller{UserID: "bob", DeviceID: "b"}, protocol.MethodSessionMove, protocol.IDRequest{SessionID: sid}); perr == nil || perr.Code != protocol.CodeNotFound {
		t.Fatalf("another user moving it: %v, want not_found", perr)
	}
}
