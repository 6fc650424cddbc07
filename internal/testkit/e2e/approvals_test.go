package e2e

import (
	"strings"
	"testing"
	"time"

	"github.com/rtcagent/rtcagent/internal/protocol"
)

// Each turn writes one file; "deny" writes one the person refuses with a reason.
const approvalsScript = `{"name": "approvals", "turns": [
  {"match": "^note", "steps": [
    {"tool_calls": [{"name": "write", "arguments": {"path": "/notes.md", "content": "x"}}]},
    {"text": "result: {{last_result}}"}]},
  {"match": "^agent", "steps": [
    {"tool_calls": [{"name": "write", "arguments": {"path": "/AGENT.md", "content": "be nice"}}]},
    {"text": "result: {{last_result}}"}]},
  {"match": "^two", "steps": [
    {"tool_calls": [{"name": "write", "arguments": {"path": "/a.md", "content": "1"}}, {"name": "write", "arguments": {"path": "/b.md", "content": "2"}}]},
    {"text": "result: {{last_result}}"}]},
  {"match": "^deny", "steps": [
    {"tool_calls": [{"name": "write", "arguments": {"path": "/c.md", "content": "3"}}]},
    {"text": "result: {{last_result}}"}]}
]}`

// lastRTC waits for the newest RTC of a turn to reach a status.
func (b *browser) rtcOfTurn(turnID, status string) protocol.RTC {
	b.t.Helper()
	return b.rtcOfTurnAfter(turnID, status, 0)
}

// rtcOfTurnAfter is rtcOfTurn for calls after the one at seq: the browser's copy
// of an earlier call may still show the status it waits for (its next updates
// not received yet).
func (b *browser) rtcOfTurnAfter(turnID, status string, seq int) protocol.RTC {
	b.t.Helper()
	var r protocol.RTC
	waitFor(b.t, "an rtc "+status, 10*time.Second, func() bool {
		b.mu.Lock()
		defer b.mu.Unlock()
		for _, x := range b.rtcs {
			if x.TurnID == turnID && x.Status == status && x.Seq > seq && (r.ID == "" || x.Seq > r.Seq) {
				r = x
			}
		}
		return r.ID != ""
	})
	return r
}

func (b *browser) sendMode(sessionID, text, mode string) protocol.MessageSendResult {
	b.t.Helper()
	var res protocol.MessageSendResult
	b.mustCall(protocol.MethodMessageSend, protocol.MessageSendRequest{ClientID: "m-" + text, SessionID: sessionID, WorkMode: mode, Content: protocol.MessageContent{Text: text}}, &res)
	return res
}

func (b *browser) session(id string) protocol.Session {
	b.t.Helper()
	var res protocol.SessionResult
	b.mustCall(protocol.MethodSessionGet, protocol.IDRequest{SessionID: id}, &res)
	return res.Session
}

// "Allow for this chat" is stored on the session by the server: the next write
// of the chat needs no confirmation (seen by another device too), a write of a
// protected path still asks, the other queued call of the same step is covered
// at once, and revoking makes the next call ask again. A denial's reason reaches
// the model in the tool result, and every decision is kept on its RTC.
func TestAllowForChat(t *testing.T) {
	s := startServer(t, mustScript(t, approvalsScript))
	b := newBrowser(t, s, "alice", "dev-a", noExecute)
	other := newBrowser(t, s, "alice", "dev-b", noExecute)

	// 1. Manual mode: the write asks; the person allows it for this chat.
	res := b.sendMode("", "note 1", protocol.ModeManual)
	r := b.rtcOfTurn(res.TurnID, protocol.RTCPending)
	if !r.NeedsConfirmation {
		t.Fatalf("a write in manual mode needs confirmation: %+v", r)
	}
	var upd protocol.RTCResult
	b.mustCall(protocol.MethodRTCUpdateStatus, protocol.RTCUpdateStatusRequest{RTCID: r.ID, Status: protocol.RTCExecuting, ClientID: "x1",
		Approval: &protocol.ApprovalAnswer{Scope: protocol.ScopeSession}}, &upd)
	if d := upd.RTC.Decision; d == nil || d.Decision != protocol.DecisionAllow || d.Scope != protocol.ScopeSession || d.DeviceID != "dev-a" || d.At.IsZero() {
		t.Fatalf("decision %+v", upd.RTC.Decision)
	}
	b.mustCall(protocol.MethodRTCSubmitResult, protocol.RTCSubmitResultRequest{RTCID: r.ID, ClientID: "r1", OK: true, Output: jsonOf("wrote")}, nil)
	b.waitTurn(res.TurnID, 10*time.Second)
	sess := b.session(res.SessionID)
	if len(sess.Approvals) != 1 || sess.Approvals[0].Tool != "write" || sess.Approvals[0].DeviceID != "dev-a" || sess.Approvals[0].RTCID != r.ID {
		t.Fatalf("approvals %+v", sess.Approvals)
	}
	waitFor(t, "the other device sees the approval", 5*time.Second, func() bool {
		other.mu.Lock()
		defer other.mu.Unlock()
		for _, u := range other.updates {
			for _, c := range u.Changes {
				if c.Type == protocol.UpdSessionUpdated && strings.Contains(string(c.Data), `"approvals":[{"tool":"write"`) {
					return true
				}
			}
		}
		return false
	})

	// 2. The next write of the chat runs without asking; the decision says why.
	res = b.sendMode(res.SessionID, "note 2", "")
	r = b.rtcOfTurn(res.TurnID, protocol.RTCPending)
	if r.NeedsConfirmation || r.Decision == nil || !r.Decision.Standing || r.Decision.Scope != protocol.ScopeSession {
		t.Fatalf("a write allowed for this chat: %+v decision %+v", r, r.Decision)
	}
	b.mustCall(protocol.MethodRTCSubmitResult, protocol.RTCSubmitResultRequest{RTCID: r.ID, ClientID: "r2", OK: true, Output: jsonOf("wrote")}, nil)
	b.waitTurn(res.TurnID, 10*time.Second)

	// 3. A protected path still asks, and allow-for-chat does not stick to it.
	res = b.sendMode(res.SessionID, "agent", "")
	r = b.rtcOfTurn(res.TurnID, protocol.RTCPending)
	if !r.NeedsConfirmation {
		t.Fatalf("a write of /AGENT.md must ask: %+v", r)
	}
	b.mustCall(protocol.MethodRTCUpdateStatus, protocol.RTCUpdateStatusRequest{RTCID: r.ID, Status: protocol.RTCExecuting, ClientID: "x3",
		Approval: &protocol.ApprovalAnswer{Scope: protocol.ScopeSession}}, &upd)
	if upd.RTC.Decision == nil || upd.RTC.Decision.Scope != protocol.ScopeOnce {
		t.Fatalf("a protected path is allowed once only: %+v", upd.RTC.Decision)
	}
	b.mustCall(protocol.MethodRTCSubmitResult, protocol.RTCSubmitResultRequest{RTCID: r.ID, ClientID: "r3", OK: true, Output: jsonOf("wrote")}, nil)
	b.waitTurn(res.TurnID, 10*time.Second)

	// 4. Revoked from the other device: the next write asks again.
	var sres protocol.SessionResult
	other.mustCall(protocol.MethodSessionUpdate, protocol.SessionUpdateRequest{SessionID: res.SessionID, RevokeApprovals: []string{"write"}}, &sres)
	if len(sres.Session.Approvals) != 0 {
		t.Fatalf("after revoke: %+v", sres.Session.Approvals)
	}
	res = b.sendMode(res.SessionID, "two", "")
	first := b.rtcOfTurn(res.TurnID, protocol.RTCPending)
	if !first.NeedsConfirmation {
		t.Fatalf("after revoke a write asks again: %+v", first)
	}
	// 5. Allowing the first of two queued writes for the chat covers the second at once.
	b.mustCall(protocol.MethodRTCUpdateStatus, protocol.RTCUpdateStatusRequest{RTCID: first.ID, Status: protocol.RTCExecuting, ClientID: "x4",
		Approval: &protocol.ApprovalAnswer{Scope: protocol.ScopeSession}}, nil)
	b.mustCall(protocol.MethodRTCSubmitResult, protocol.RTCSubmitResultRequest{RTCID: first.ID, ClientID: "r4", OK: true, Output: jsonOf("wrote a")}, nil)
	second := b.rtcOfTurnAfter(res.TurnID, protocol.RTCPending, first.Seq)
	if second.ID == first.ID || second.NeedsConfirmation || second.Decision == nil || !second.Decision.Standing {
		t.Fatalf("the queued write of the same step: %+v", second)
	}
	b.mustCall(protocol.MethodRTCSubmitResult, protocol.RTCSubmitResultRequest{RTCID: second.ID, ClientID: "r5", OK: true, Output: jsonOf("wrote b")}, nil)
	b.waitTurn(res.TurnID, 10*time.Second)

	// 6. Revoke again; a denial with a reason reaches the model.
	b.mustCall(protocol.MethodSessionUpdate, protocol.SessionUpdateRequest{SessionID: res.SessionID, RevokeApprovals: []string{"write"}}, nil)
	res = b.sendMode(res.SessionID, "deny", "")
	r = b.rtcOfTurn(res.TurnID, protocol.RTCPending)
	b.mustCall(protocol.MethodRTCUpdateStatus, protocol.RTCUpdateStatusRequest{RTCID: r.ID, Status: protocol.RTCRejected, ClientID: "x6",
		Reason: "the user declined this write call: use /drafts instead", Approval: &protocol.ApprovalAnswer{Reason: "use /drafts instead"}}, &upd)
	if d := upd.RTC.Decision; d == nil || d.Decision != protocol.DecisionDeny || d.Reason != "use /drafts instead" || d.DeviceID != "dev-a" {
		t.Fatalf("denial %+v", upd.RTC.Decision)
	}
	turn := b.waitTurn(res.TurnID, 10*time.Second)
	if turn.Status != protocol.TurnCompleted {
		t.Fatalf("turn %s", turn.Status)
	}
	msgs := b.assistantMessages(res.SessionID)
	last := msgs[len(msgs)-1].Text
	if !strings.Contains(last, "[Tool Rejected]") || !strings.Contains(last, "use /drafts instead") {
		t.Fatalf("the model read %q", last)
	}

	// Bad answers are refused with a stable code.
	for _, req := range []protocol.RTCUpdateStatusRequest{
		{RTCID: r.ID, Status: protocol.RTCExecuting, ClientID: "b1", Approval: &protocol.ApprovalAnswer{Scope: "forever"}},
		{RTCID: r.ID, Status: protocol.RTCRejected, ClientID: "b2", Approval: &protocol.ApprovalAnswer{Scope: protocol.ScopeSession}},
		{RTCID: r.ID, Status: protocol.RTCSent, ClientID: "b3", Approval: &protocol.ApprovalAnswer{}},
		{RTCID: r.ID, Status: protocol.RTCRejected, ClientID: "b4", Approval: &protocol.ApprovalAnswer{Reason: strings.Repeat("x", 5000)}},
	} {
		_, err := b.call(t.Context(), protocol.MethodRTCUpdateStatus, req)
		if pe, ok := err.(*protocol.Error); !ok || (pe.Code != protocol.CodeInvalidArgument && pe.Code != protocol.CodeTooLarge) {
			t.Errorf("%+v: got %v", req.Approval, err)
		}
	}
	if _, err := b.call(t.Context(), protocol.MethodSessionUpdate, protocol.SessionUpdateRequest{SessionID: res.SessionID, RevokeApprovals: []string{strings.Repeat("w", 65)}}); err == nil {
		t.Error("a tool name of 65 bytes was accepted")
	}
}
