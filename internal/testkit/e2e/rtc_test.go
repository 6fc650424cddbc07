package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	centrifuge "github.com/centrifugal/centrifuge-go"
	"github.com/golang-jwt/jwt/v5"

	"github.com/rtcagent/rtcagent/internal/auth"
	"github.com/rtcagent/rtcagent/internal/config"
	"github.com/rtcagent/rtcagent/internal/llm"
	"github.com/rtcagent/rtcagent/internal/protocol"
)

const oneWriteScript = `{"name": "one-write", "turns": [{"steps": [
  {"tool_calls": [{"name": "write", "arguments": {"path": "/a.txt", "content": "x"}}]},
  {"chunks": ["result: ", "{{last_result}}"]}
]}]}`

// pendingRTC waits for the first RTC the client sees as pending.
func (b *browser) pendingRTC() protocol.RTC {
	b.t.Helper()
	var r protocol.RTC
	waitFor(b.t, "a pending rtc", 10*time.Second, func() bool {
		b.mu.Lock()
		defer b.mu.Unlock()
		for _, x := range b.rtcs {
			if x.Status == protocol.RTCPending {
				r = x
				return true
			}
		}
		return false
	})
	return r
}

func TestSubmitIdempotent(t *testing.T) {
	s := startServer(t, mustScript(t, oneWriteScript))
	b := newBrowser(t, s, "alice", "dev-a", noExecute)
	res := b.send("", "go")
	r := b.pendingRTC()

	var wg sync.WaitGroup
	errs := make(chan error, 20)
	for i := 0; i < 20; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			data, err := b.call(ctx, protocol.MethodRTCSubmitResult, protocol.RTCSubmitResultRequest{RTCID: r.ID, ClientID: "same", OK: true, Output: jsonOf("first")})
			if err == nil {
				var out protocol.RTCResult
				_ = json.Unmarshal(data, &out)
				if out.RTC.Status != protocol.RTCCompleted || string(out.RTC.Output) != `"first"` {
					err = fmt.Errorf("answered %+v", out.RTC)
				}
			}
			errs <- err
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	// A later submission with another client_id gets the stored outcome.
	var late protocol.RTCResult
	b.mustCall(protocol.MethodRTCSubmitResult, protocol.RTCSubmitResultRequest{RTCID: r.ID, ClientID: "other", OK: false, Error: "late"}, &late)
	if late.RTC.Status != protocol.RTCCompleted || late.RTC.ClientID != "same" || string(late.RTC.Output) != `"first"` {
		t.Fatalf("late submit changed the outcome: %+v", late.RTC)
	}
	turn := b.waitTurn(res.TurnID, 10*time.Second)
	if turn.Status != protocol.TurnCompleted {
		t.Fatalf("turn %s", turn.Status)
	}
	// Exactly one terminal transition was recorded for the RTC.
	var ul protocol.UpdateListResult
	b.mustCall(protocol.MethodUpdateList, protocol.UpdateListRequest{SinceOffset: 0, Limit: 200}, &ul)
	completed := 0
	for _, data := range changesOf(ul.Updates, protocol.UpdRTCUpdated) {
		var x protocol.RTC
		if json.Unmarshal(data, &x) == nil && x.ID == r.ID && protocol.RTCTerminal(x.Status) {
			completed++
		}
	}
	if completed != 1 {
		t.Fatalf("%d terminal updates for the rtc", completed)
	}
	msgs := b.assistantMessages(res.SessionID)
	if last := msgs[len(msgs)-1]; last.Text != "result: first" {
		t.Fatalf("model answer %q", last.Text)
	}
}

func TestDeadlineTimesOut(t *testing.T) {
	model := mustScript(t, oneWriteScript)
	s := startServer(t, model, func(c *config.Config) { c.ExecTimeout = 300 * time.Millisecond })
	b := newBrowser(t, s, "alice", "dev-a", noExecute)
	res := b.send("", "go")
	turn := b.waitTurn(res.TurnID, 10*time.Second)
	if turn.Status != protocol.TurnCompleted {
		t.Fatalf("turn %s", turn.Status)
	}
	var rtcs protocol.RTCListResult
	b.mustCall(protocol.MethodRTCList, protocol.ListRequest{SessionID: res.SessionID}, &rtcs)
	if len(rtcs.RTCs) != 1 || rtcs.RTCs[0].Status != protocol.RTCTimeout {
		t.Fatalf("rtcs %+v", rtcs.RTCs)
	}
	reqs := model.Requests()
	var seen string
	for _, m := range reqs[len(reqs)-1].Messages {
		if m.Role == llm.RoleTool {
			seen = m.Text
		}
	}
	if !strings.HasPrefix(seen, "[Tool Timeout]") {
		t.Fatalf("model saw %q", seen)
	}
	// A result after the deadline changes nothing.
	var late protocol.RTCResult
	b.mustCall(protocol.MethodRTCSubmitResult, protocol.RTCSubmitResultRequest{RTCID: rtcs.RTCs[0].ID, ClientID: "late", OK: true, Output: jsonOf("x")}, &late)
	if late.RTC.Status != protocol.RTCTimeout {
		t.Fatalf("late result applied: %+v", late.RTC)
	}
}

// httpCall calls a method over HTTP with a token of user and a device.
func httpCall(t *testing.T, s *testServer, user, device, method string, params any) (int, protocol.Error) {
	t.Helper()
	tok, _, _ := s.Srv.Verifier().Issue(user, time.Hour)
	req, _ := http.NewRequest(http.MethodPost, s.HTTP.URL+"/api/v1/rpc/"+method, bytes.NewReader(jsonOf(params)))
	req.Header.Set("Authorization", "Bearer "+tok)
	req.Header.Set("X-Device-Id", device)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var body struct{ Error protocol.Error }
	_ = json.NewDecoder(resp.Body).Decode(&body)
	return resp.StatusCode, body.Error
}

func TestIsolation(t *testing.T) {
	s := startServer(t, mustScript(t, oneWriteScript))
	alice := newBrowser(t, s, "alice", "dev-a", noExecute)
	bob := newBrowser(t, s, "bob", "dev-b", noExecute)
	res := alice.send("", "go")
	r := alice.pendingRTC()

	ids := []struct {
		method string
		params any
	}{
		{protocol.MethodSessionGet, protocol.IDRequest{SessionID: res.SessionID}},
		{protocol.MethodSessionUpdate, map[string]any{"session_id": res.SessionID, "title": "mine"}},
		{protocol.MethodSessionClose, protocol.IDRequest{SessionID: res.SessionID}},
		{protocol.MethodSessionOpen, protocol.IDRequest{SessionID: res.SessionID}},
		{protocol.MethodSessionFork, protocol.SessionForkRequest{ClientID: "bf", SessionID: res.SessionID, MessageID: res.MessageID}},
		{protocol.MethodSessionDelete, protocol.IDRequest{SessionID: res.SessionID}},
		{protocol.MethodMessageList, protocol.ListRequest{SessionID: res.SessionID}},
		{protocol.MethodMessageGet, protocol.IDRequest{MessageID: res.MessageID}},
		{protocol.MethodMessageSend, protocol.MessageSendRequest{ClientID: "b1", SessionID: res.SessionID, Content: protocol.MessageContent{Text: "hi"}}},
		{protocol.MethodTurnList, protocol.ListRequest{SessionID: res.SessionID}},
		{protocol.MethodTurnGet, protocol.IDRequest{TurnID: res.TurnID}},
		{protocol.MethodTurnStop, protocol.IDRequest{SessionID: res.SessionID}},
		{protocol.MethodRTCList, protocol.ListRequest{SessionID: res.SessionID}},
		{protocol.MethodRTCGet, protocol.IDRequest{RTCID: r.ID}},
		{protocol.MethodRTCUpdateStatus, protocol.RTCUpdateStatusRequest{RTCID: r.ID, Status: protocol.RTCExecuting, ClientID: "b"}},
		{protocol.MethodRTCSubmitResult, protocol.RTCSubmitResultRequest{RTCID: r.ID, ClientID: "b", OK: true, Output: jsonOf("evil")}},
	}
	for _, c := range ids {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		_, err := bob.call(ctx, c.method, c.params)
		cancel()
		var pe *protocol.Error
		if !errors.As(err, &pe) || pe.Code != protocol.CodeNotFound {
			t.Errorf("websocket %s by bob: %v, want not_found", c.method, err)
		}
		status, perr := httpCall(t, s, "bob", "dev-b", c.method, c.params)
		if status != http.StatusNotFound || perr.Code != protocol.CodeNotFound {
			t.Errorf("http %s by bob: %d %+v", c.method, status, perr)
		}
	}
	// Lists show bob nothing of alice's.
	var sl protocol.SessionListResult
	bob.mustCall(protocol.MethodSessionList, protocol.ListRequest{}, &sl)
	var pending protocol.RTCListResult
	bob.mustCall(protocol.MethodRTCPending, struct{}{}, &pending)
	if len(sl.Sessions) != 0 || len(pending.RTCs) != 0 {
		t.Fatalf("bob sees %d sessions, %d rtcs", len(sl.Sessions), len(pending.RTCs))
	}
	// Alice's other device sees the session but cannot act on its RTCs.
	status, perr := httpCall(t, s, "alice", "dev-other", protocol.MethodRTCSubmitResult, protocol.RTCSubmitResultRequest{RTCID: r.ID, ClientID: "o", OK: true})
	if status != http.StatusForbidden || perr.Code != protocol.CodeForbidden {
		t.Fatalf("other device submit: %d %+v", status, perr)
	}
	if status, _ := httpCall(t, s, "alice", "dev-other", protocol.MethodSessionGet, protocol.IDRequest{SessionID: res.SessionID}); status != http.StatusOK {
		t.Fatalf("other device get: %d", status)
	}
	// Nothing changed for alice, and bob's channels carried none of her events.
	var got protocol.RTCResult
	alice.mustCall(protocol.MethodRTCGet, protocol.IDRequest{RTCID: r.ID}, &got)
	if got.RTC.Status != protocol.RTCPending {
		t.Fatalf("alice's rtc is %s", got.RTC.Status)
	}
	bob.mu.Lock()
	defer bob.mu.Unlock()
	if len(bob.updates) != 0 || len(bob.deltas) != 0 {
		t.Fatalf("bob received %d updates, %d delta streams", len(bob.updates), len(bob.deltas))
	}
}

// TestBadTokensRefused: every method over HTTP, and the WebSocket connect, refuse
// a missing, malformed, expired or foreign-signed token.
func TestBadTokensRefused(t *testing.T) {
	s := startServer(t, mustScript(t, oneWriteScript))
	foreign, _ := auth.NewVerifier([]byte("some-other-secret-0123"))
	forged, _, _ := foreign.Issue("alice", time.Hour)
	expired := expiredToken(t)
	tokens := map[string]string{"none": "", "garbage": "abc.def.ghi", "forged": forged, "expired": expired}
	for _, m := range allMethods {
		for name, tok := range tokens {
			req, _ := http.NewRequest(http.MethodPost, s.HTTP.URL+"/api/v1/rpc/"+m, strings.NewReader("{}"))
			if tok != "" {
				req.Header.Set("Authorization", "Bearer "+tok)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			var body struct{ Error protocol.Error }
			_ = json.NewDecoder(resp.Body).Decode(&body)
			resp.Body.Close()
			if resp.StatusCode != http.StatusUnauthorized || body.Error.Code != protocol.CodeUnauthenticated {
				t.Errorf("%s with %s token: %d %+v", m, name, resp.StatusCode, body.Error)
			}
		}
	}
	for name, tok := range tokens {
		c := centrifuge.NewJsonClient(s.wsURL(), centrifuge.Config{Token: tok})
		refused := make(chan struct{}, 1)
		c.OnDisconnected(func(centrifuge.DisconnectedEvent) { refused <- struct{}{} })
		c.OnError(func(centrifuge.ErrorEvent) {
			select {
			case refused <- struct{}{}:
			default:
			}
		})
		connected := make(chan struct{}, 1)
		c.OnConnected(func(centrifuge.ConnectedEvent) { connected <- struct{}{} })
		_ = c.Connect()
		select {
		case <-connected:
			t.Errorf("websocket connected with a %s token", name)
		case <-refused:
		case <-time.After(5 * time.Second):
			t.Errorf("websocket with a %s token: neither refused nor connected", name)
		}
		c.Close()
	}
}

// expiredToken is signed with the test secret but expired a minute ago.
func expiredToken(t *testing.T) string {
	tok, err := jwt.NewWithClaims(jwt.SigningMethodHS256, jwt.RegisteredClaims{Subject: "alice",
		ExpiresAt: jwt.NewNumericDate(time.Now().Add(-time.Minute))}).SignedString([]byte(testSecret))
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

var allMethods = []string{
	protocol.MethodMessageSend, protocol.MethodMessageList, protocol.MethodMessageGet, protocol.MethodSessionList,
	protocol.MethodSessionGet, protocol.MethodSessionUpdate, protocol.MethodSessionClose, protocol.MethodSessionOpen,
	protocol.MethodSessionDelete, protocol.MethodSessionFork, protocol.MethodTurnStop, protocol.MethodTurnList, protocol.MethodTurnGet,
	protocol.MethodRTCUpdateStatus, protocol.MethodRTCSubmitResult, protocol.MethodRTCList, protocol.MethodRTCGet,
	protocol.MethodRTCPending, protocol.MethodUpdateList,
}

// Human waits in sequence: two confirmations in one step, both unanswered. Each
// times out on its own deadline and the turn resumes with [Tool Timeout] for both:
// the checkpoint outlives every deadline of its turn.
func TestSequentialHumanWaitsTimeOut(t *testing.T) {
	model := mustScript(t, `{"name": "two-confirms", "turns": [{"steps": [
	  {"tool_calls": [{"name": "write", "arguments": {"path": "/a", "content": "1"}}, {"name": "write", "arguments": {"path": "/b", "content": "2"}}]},
	  {"text": "after: {{last_result}}"}]}]}`)
	s := startServer(t, model, func(c *config.Config) { c.HumanTimeout = 400 * time.Millisecond })
	b := newBrowser(t, s, "alice", "dev-a", noExecute)
	var res protocol.MessageSendResult
	b.mustCall(protocol.MethodMessageSend, protocol.MessageSendRequest{ClientID: "m", WorkMode: protocol.ModeManual, Content: protocol.MessageContent{Text: "go"}}, &res)
	turn := b.waitTurn(res.TurnID, 10*time.Second)
	if turn.Status != protocol.TurnCompleted {
		t.Fatalf("turn %s %+v", turn.Status, turn.Error)
	}
	var rtcs protocol.RTCListResult
	b.mustCall(protocol.MethodRTCList, protocol.ListRequest{SessionID: res.SessionID}, &rtcs)
	if len(rtcs.RTCs) != 2 || rtcs.RTCs[0].Status != protocol.RTCTimeout || rtcs.RTCs[1].Status != protocol.RTCTimeout || !rtcs.RTCs[0].NeedsConfirmation {
		t.Fatalf("rtcs %+v", rtcs.RTCs)
	}
	if !rtcs.RTCs[1].DeadlineAt.After(*rtcs.RTCs[0].DeadlineAt) {
		t.Fatal("the second call's deadline did not start at its delivery")
	}
}

// The same client_id sent concurrently creates one message and one turn.
func TestMessageSendIdempotent(t *testing.T) {
	s := startServer(t, mustScript(t, writeReadScript))
	b := newBrowser(t, s, "alice", "dev-a", noExecute)
	var wg sync.WaitGroup
	results := make(chan protocol.MessageSendResult, 10)
	errs := make(chan error, 10)
	for i := 0; i < 10; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			data, err := b.call(ctx, protocol.MethodMessageSend, protocol.MessageSendRequest{ClientID: "once", Content: protocol.MessageContent{Text: "hi"}})
			var r protocol.MessageSendResult
			if err == nil {
				err = json.Unmarshal(data, &r)
			}
			errs <- err
			results <- r
		}()
	}
	wg.Wait()
	close(results)
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	var first protocol.MessageSendResult
	for r := range results {
		if first.MessageID == "" {
			first = r
		}
		if r != first {
			t.Fatalf("different results %+v %+v", r, first)
		}
	}
	var sl protocol.SessionListResult
	b.mustCall(protocol.MethodSessionList, protocol.ListRequest{}, &sl)
	if len(sl.Sessions) != 1 {
		t.Fatalf("%d sessions", len(sl.Sessions))
	}
}
