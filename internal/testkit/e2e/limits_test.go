package e2e

import (
	"fmt"

	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/rtcagent/rtcagent/internal/config"

	"github.com/rtcagent/rtcagent/internal/protocol"
)

// Bad input gets a clear error with a stable code, over HTTP and WebSocket alike.
func TestInputLimits(t *testing.T) {
	s := startServer(t, mustScript(t, oneWriteScript))
	long := strings.Repeat("x", 64<<10+1)
	cases := []struct {
		method string
		params any
		code   string
	}{
		{protocol.MethodMessageSend, protocol.MessageSendRequest{ClientID: "c", Content: protocol.MessageContent{Text: long}}, protocol.CodeTooLarge},
		{protocol.MethodMessageSend, protocol.MessageSendRequest{ClientID: "c", Content: protocol.MessageContent{Text: ""}}, protocol.CodeInvalidArgument},
		{protocol.MethodMessageSend, protocol.MessageSendRequest{Content: protocol.MessageContent{Text: "hi"}}, protocol.CodeInvalidArgument},
		{protocol.MethodMessageSend, protocol.MessageSendRequest{ClientID: strings.Repeat("c", 129), Content: protocol.MessageContent{Text: "hi"}}, protocol.CodeInvalidArgument},
		{protocol.MethodMessageSend, protocol.MessageSendRequest{ClientID: "c", WorkMode: "yolo", Content: protocol.MessageContent{Text: "hi"}}, protocol.CodeInvalidArgument},
		{protocol.MethodMessageSend, protocol.MessageSendRequest{ClientID: "c", Content: protocol.MessageContent{Text: "hi"}, Tools: []protocol.HostTool{{Name: "read"}}}, protocol.CodeInvalidArgument},
		{protocol.MethodMessageSend, "not an object", protocol.CodeInvalidArgument},
		{protocol.MethodSessionUpdate, map[string]any{"session_id": "s", "title": strings.Repeat("t", 201)}, protocol.CodeInvalidArgument},
		{protocol.MethodRTCUpdateStatus, protocol.RTCUpdateStatusRequest{RTCID: "r", ClientID: "c", Status: "completed"}, protocol.CodeInvalidArgument},
		{protocol.MethodRTCSubmitResult, map[string]any{"rtc_id": "r", "client_id": "c", "ok": true, "output": strings.Repeat("y", 2<<20)}, protocol.CodeTooLarge},
		{protocol.MethodMessageList, protocol.ListRequest{SessionID: "s", Cursor: "abc"}, protocol.CodeInvalidArgument},
		{"v1.nothing.here", struct{}{}, protocol.CodeUnknownMethod},
	}
	for _, c := range cases {
		status, perr := httpCall(t, s, "alice", "d", c.method, c.params)
		if perr.Code != c.code || status != protocol.HTTPStatus(c.code) || perr.Message == "" {
			t.Errorf("%s: %d %+v, want %s", c.method, status, perr, c.code)
		}
	}
	for _, device := range []string{"d 1", "d\u202e", strings.Repeat("d", 129)} {
		status, perr := httpCall(t, s, "alice", device, protocol.MethodSessionList, struct{}{})
		if perr.Code != protocol.CodeInvalidArgument || status != http.StatusBadRequest {
			t.Errorf("X-Device-Id %q: %d %+v, want invalid_argument", device, status, perr)
		}
	}
	if status, _ := httpCall(t, s, "alice", "d", protocol.MethodSessionList, struct{}{}); status != http.StatusOK {
		t.Fatalf("a valid call after the bad ones: %d", status)
	}
}

// Large tool results travel over the WebSocket; results over the request limit get
// too_large and the connection stays usable.
func TestLargeResultOverWebSocket(t *testing.T) {
	s := startServer(t, mustScript(t, oneWriteScript))
	b := newBrowser(t, s, "alice", "dev-a", noExecute)
	res := b.send("", "go")
	r := b.pendingRTC()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, err := b.call(ctx, protocol.MethodRTCSubmitResult, protocol.RTCSubmitResultRequest{RTCID: r.ID, ClientID: "big", OK: true, Output: jsonOf(strings.Repeat("z", 1100<<10))})
	var pe *protocol.Error
	if !errors.As(err, &pe) || pe.Code != protocol.CodeTooLarge {
		t.Fatalf("1.1 MiB result: %v", err)
	}
	var ok protocol.RTCResult
	b.mustCall(protocol.MethodRTCSubmitResult, protocol.RTCSubmitResultRequest{RTCID: r.ID, ClientID: "ok", OK: true, Output: jsonOf(strings.Repeat("z", 300<<10))}, &ok)
	if ok.RTC.Status != protocol.RTCCompleted {
		t.Fatalf("300 KiB result: %s", ok.RTC.Status)
	}
	if tr := b.waitTurn(res.TurnID, 10*time.Second); tr.Status != protocol.TurnCompleted {
		t.Fatalf("turn %s", tr.Status)
	}
	msgs := b.assistantMessages(res.SessionID)
	if last := msgs[len(msgs)-1]; !strings.Contains(last.Text, "bytes omitted") || len(last.Text) > 300<<10 {
		t.Fatalf("the model got an uncut result (%d bytes)", len(last.Text))
	}
}

// The per-user rate limit on v1.message.send protects the model budget.
func TestMessageRateLimit(t *testing.T) {
	s := startServer(t, mustScript(t, oneWriteScript), func(c *config.Config) { c.MsgRate, c.MsgBurst = 6, 3 })
	for i := 0; i < 3; i++ {
		if status, perr := httpCall(t, s, "alice", "d", protocol.MethodMessageSend, protocol.MessageSendRequest{ClientID: fmt.Sprint("m", i), Content: protocol.MessageContent{Text: "hi"}}); status != 200 {
			t.Fatalf("message %d: %d %+v", i, status, perr)
		}
	}
	status, perr := httpCall(t, s, "alice", "d", protocol.MethodMessageSend, protocol.MessageSendRequest{ClientID: "m4", Content: protocol.MessageContent{Text: "hi"}})
	if status != http.StatusTooManyRequests || perr.Code != protocol.CodeRateLimited || !strings.Contains(perr.Message, "try again in") {
		t.Fatalf("4th message: %d %+v", status, perr)
	}
	if status, _ := httpCall(t, s, "bob", "d", protocol.MethodMessageSend, protocol.MessageSendRequest{ClientID: "b", Content: protocol.MessageContent{Text: "hi"}}); status != 200 {
		t.Fatalf("another user was limited: %d", status)
	}
}

// TestStepCallsCapped: a model step asking for more calls than a step runs
// (protocol.Limits.StepCalls) gets that many RTCs and one more, failed, that
// tells the model why; the calls after it are left out of the message, and
// the turn goes on.
func TestStepCallsCapped(t *testing.T) {
	lim := protocol.Limits{}.WithDefaults()
	calls := make([]string, lim.StepCalls+6)
	for i := range calls {
		calls[i] = `{"name": "ls", "arguments": {"path": "/"}}`
	}
	s := startServer(t, mustScript(t, `{"name": "many", "turns": [{"steps": [
	  {"text": "Listing a lot.", "tool_calls": [`+strings.Join(calls, ",")+`]},
	  {"text": "{{last_result}}"}]}]}`))
	b := newBrowser(t, s, "alice", "d")
	res := b.send("", "list everything")
	if tr := b.waitTurn(res.TurnID, 60*time.Second); tr.Status != protocol.TurnCompleted {
		t.Fatalf("turn %s %+v", tr.Status, tr.Error)
	}
	var list protocol.RTCListResult
	b.mustCall(protocol.MethodRTCList, protocol.ListRequest{SessionID: res.SessionID, Limit: 200}, &list)
	if len(list.RTCs) != lim.StepCalls+1 {
		t.Fatalf("%d calls, want %d", len(list.RTCs), lim.StepCalls+1)
	}
	last := list.RTCs[len(list.RTCs)-1]
	if last.Status != protocol.RTCFailed || !strings.Contains(last.Error, "too many tool calls in one step") || list.RTCs[0].Status != protocol.RTCCompleted {
		t.Fatalf("first %s, last %s %q", list.RTCs[0].Status, last.Status, last.Error)
	}
	msgs := b.assistantMessages(res.SessionID)
	if n := len(msgs[0].ToolCalls); n != lim.StepCalls+1 {
		t.Fatalf("the message keeps %d calls, want %d", n, lim.StepCalls+1)
	}
	if final := msgs[len(msgs)-1].Text; !strings.Contains(final, "too many tool calls") {
		t.Fatalf("the model did not read why: %q", final)
	}
}
