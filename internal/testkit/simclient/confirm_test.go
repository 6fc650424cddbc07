package simclient_test

import (
	"context"
	"io"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rtcagent/rtcagent/internal/llm/scripted"
	"github.com/rtcagent/rtcagent/internal/protocol"
	"github.com/rtcagent/rtcagent/internal/testkit/simclient"
	"github.com/rtcagent/rtcagent/internal/testkit/testserver"
)

const writes = `{"name": "writes", "turns": [{"steps": [
  {"tool_calls": [{"name": "write", "arguments": {"path": "/a.txt", "content": "a"}},
                  {"name": "write", "arguments": {"path": "/b.txt", "content": "b"}}]},
  {"text": "done"}
]}]}`

// confirmRun sends one message in manual mode (writes ask) to a client whose
// person answers with answer, and returns the turn's RTCs and session.
func confirmRun(t *testing.T, profile *simclient.Profile, answer simclient.Answer) ([]protocol.RTC, protocol.Session, int64, int) {
	t.Helper()
	m, err := scripted.Parse([]byte(writes))
	if err != nil {
		t.Fatal(err)
	}
	s := testserver.Start(t, m, testserver.Options{Logs: io.Discard})
	var asked atomic.Int64
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	c, err := simclient.Dial(ctx, simclient.Config{URL: s.WSURL(), Token: s.Token(t, "dana", time.Hour), DeviceID: "dev", Profile: profile,
		Tool: func(context.Context, protocol.RTC) simclient.Result {
			return simclient.Result{OK: true, Output: "written"}
		},
		Confirm: func(context.Context, protocol.RTC) simclient.Answer {
			asked.Add(1)
			return answer
		}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	var res protocol.MessageSendResult
	if err := c.Call(ctx, protocol.MethodMessageSend, protocol.MessageSendRequest{ClientID: "m1", WorkMode: protocol.ModeManual,
		Content: protocol.MessageContent{Text: "write"}}, &res); err != nil {
		t.Fatal(err)
	}
	if profile != nil {
		_, err = profile.WaitTurn(ctx, res.TurnID)
	} else {
		_, err = c.WaitTurn(ctx, res.TurnID)
	}
	if err != nil {
		t.Fatal(err)
	}
	var list protocol.RTCListResult
	if err := c.Call(ctx, protocol.MethodRTCList, protocol.ListRequest{SessionID: res.SessionID}, &list); err != nil {
		t.Fatal(err)
	}
	var sess protocol.SessionResult
	if err := c.Call(ctx, protocol.MethodSessionGet, protocol.IDRequest{SessionID: res.SessionID}, &sess); err != nil {
		t.Fatal(err)
	}
	if err := c.Err(); err != nil {
		t.Fatal(err)
	}
	return list.RTCs, sess.Session, asked.Load(), c.Executed()
}

// TestConfirmAllowForChat: the person is asked about the first write and
// allows it for the chat; the second runs unasked on that approval.
func TestConfirmAllowForChat(t *testing.T) {
	rtcs, sess, asked, executed := confirmRun(t, simclient.NewProfile(), simclient.Answer{Allow: true, ForChat: true})
	if asked != 1 || executed != 2 || len(rtcs) != 2 {
		t.Fatalf("asked %d, executed %d, %d rtcs", asked, executed, len(rtcs))
	}
	for i, r := range rtcs {
		if r.Status != protocol.RTCCompleted || r.Decision == nil || r.Decision.Scope != protocol.ScopeSession || r.Decision.Standing != (i == 1) {
			t.Errorf("rtc %d: %s decision %+v", i, r.Status, r.Decision)
		}
	}
	if !sess.HasApproval("write") {
		t.Fatalf("approvals %+v", sess.Approvals)
	}
}

// TestConfirmDecline: a declined call does not run; it is rejected with the
// person's denial.
func TestConfirmDecline(t *testing.T) {
	rtcs, sess, asked, executed := confirmRun(t, nil, simclient.Answer{Reason: "not now"})
	if asked != 2 || executed != 0 || len(rtcs) != 2 {
		t.Fatalf("asked %d, executed %d, %d rtcs", asked, executed, len(rtcs))
	}
	for i, r := range rtcs {
		if r.Status != protocol.RTCRejected || r.Decision == nil || r.Decision.Decision != protocol.DecisionDeny || r.Error != "not now" {
			t.Errorf("rtc %d: %s %q decision %+v", i, r.Status, r.Error, r.Decision)
		}
	}
	if len(sess.Approvals) != 0 {
		t.Fatalf("approvals %+v", sess.Approvals)
	}
}
