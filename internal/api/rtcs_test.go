package api

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"strings"
	"testing"

	"github.com/rtcagent/rtcagent/internal/core"
	"github.com/rtcagent/rtcagent/internal/protocol"
	"github.com/rtcagent/rtcagent/internal/store"
	"github.com/rtcagent/rtcagent/internal/testkit/testsvc"
)

// TestSubmitResultRequiresOK: a result without "ok" (or with null) is refused
// with invalid_argument before anything is looked up; with ok it goes on to the
// RTC (here unknown: not_found).
func TestSubmitResultRequiresOK(t *testing.T) {
	a, _ := newTestAPI(t)
	c := core.Caller{UserID: "alice", DeviceID: "d"}
	for _, params := range []string{
		`{"rtc_id":"r","client_id":"c","output":"done"}`,
		`{"rtc_id":"r","client_id":"c","ok":null,"output":"done"}`,
		`{"rtc_id":"r","client_id":"c","error":"failed"}`,
	} {
		_, perr := a.Call(context.Background(), c, protocol.MethodRTCSubmitResult, []byte(params))
		if perr == nil || perr.Code != protocol.CodeInvalidArgument || !strings.Contains(perr.Message, "ok is required") {
			t.Errorf("%s: %+v, want invalid_argument: ok is required", params, perr)
		}
	}
	for _, params := range []string{`{"rtc_id":"r","client_id":"c","ok":true,"output":"done"}`, `{"rtc_id":"r","client_id":"c","ok":false,"error":"x"}`} {
		_, perr := a.Call(context.Background(), c, protocol.MethodRTCSubmitResult, []byte(params))
		if perr == nil || perr.Code != protocol.CodeNotFound {
			t.Errorf("%s: %+v, want not_found", params, perr)
		}
	}
}

// newTestAPI is the API over a fresh SQLite store with no session workers.
func newTestAPI(t *testing.T) (*API, store.Store) {
	t.Helper()
	st := testsvc.SQLite(t)
	return New(st, idleRunner{}, protocol.Limits{}, slog.New(slog.NewTextHandler(io.Discard, nil))), st
}

// callAs calls a method as c with req encoded as its params.
func callAs(a *API, c core.Caller, method string, req any) (json.RawMessage, *protocol.Error) {
	raw, _ := json.Marshal(req)
	return a.Call(context.Background(), c, method, raw)
}

// A result's reply carries the call as its Topic change does (the JSON its
// store encoded), byte for byte what encoding the stored call gives, and a
// repeated result, which changes nothing, gets the same reply.
func TestResultReplyIsTheStoredCall(t *testing.T) {
	a, st := newTestAPI(t)
	ctx := context.Background()
	c := core.Caller{UserID: "alice", DeviceID: "d"}
	res, perr := callAs(a, c, protocol.MethodMessageSend, protocol.MessageSendRequest{ClientID: "m1", Content: protocol.MessageContent{Text: "hi"}})
	if perr != nil {
		t.Fatal(perr)
	}
	var sent protocol.MessageSendResult
	_ = json.Unmarshal(res, &sent)
	r := &protocol.RTC{ID: "r1", SessionID: sent.SessionID, TurnID: sent.TurnID, UserID: "alice", Seq: 1, ToolName: "ls",
		Arguments: json.RawMessage(`{"path":"/<a&b>"}`), Status: protocol.RTCPending, Audit: &protocol.AuditState{WorkMode: "edit"}}
	if err := st.Write(ctx, func(tx store.Tx) error { return tx.RTCInsert(r) }); err != nil {
		t.Fatal(err)
	}
	req := protocol.RTCSubmitResultRequest{RTCID: "r1", ClientID: "c1", OK: true, Output: json.RawMessage(`{"entries": ["x < y"]}`)}
	params, _ := json.Marshal(req)
	reply, err := a.rtcSubmitResult(ctx, c, params)
	first, ok := reply.(rawReply)
	if err != nil || !ok {
		t.Fatalf("the result's reply is %T (%v), not the call as its change carries it", reply, err)
	}
	var stored *protocol.RTC
	if err := st.Read(ctx, func(tx store.Tx) error {
		var err error
		stored, err = tx.RTCGet("r1")
		return err
	}); err != nil {
		t.Fatal(err)
	}
	want, err := json.Marshal(protocol.RTCResult{RTC: *stored})
	if err != nil {
		t.Fatal(err)
	}
	if string(first) != string(want) {
		t.Fatalf("the result's reply\n%s\nis not the stored call's encoding\n%s", first, want)
	}
	again, perr := callAs(a, c, protocol.MethodRTCSubmitResult, req)
	if perr != nil || string(again) != string(want) {
		t.Fatalf("a repeated result's reply\n%s (%v)\nis not\n%s", again, perr, want)
	}
}
