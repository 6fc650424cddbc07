package e2e

import (
	"testing"
	"time"

	"github.com/rtcagent/rtcagent/internal/config"
	"github.com/rtcagent/rtcagent/internal/protocol"
	"github.com/rtcagent/rtcagent/internal/store"
)

// auditOf reads the audit records of a session through v1.audit.list.
func (b *browser) auditOf(sessionID string) []protocol.AuditRecord {
	b.t.Helper()
	var res protocol.AuditListResult
	b.mustCall(protocol.MethodAuditList, protocol.AuditListRequest{SessionID: sessionID}, &res)
	return res.Records
}

// The audit record of each call says who decided, how and when, for every work
// mode and for a person's allow, deny and silence.
func TestAuditDecisions(t *testing.T) {
	s := startServer(t, mustScript(t, oneWriteScript), func(c *config.Config) { c.HumanTimeout = 500 * time.Millisecond })
	auto := newBrowser(t, s, "alice", "dev-a")
	person := newBrowser(t, s, "bob", "dev-b", noExecute)

	one := func(b *browser, res protocol.MessageSendResult) protocol.AuditRecord {
		t.Helper()
		if tr := b.waitTurn(res.TurnID, 15*time.Second); tr.Status != protocol.TurnCompleted {
			t.Fatalf("turn %s %+v", tr.Status, tr.Error)
		}
		recs := b.auditOf(res.SessionID)
		if len(recs) != 1 {
			t.Fatalf("%d audit records, want 1: %+v", len(recs), recs)
		}
		a := recs[0]
		if a.ToolName != "write" || string(a.Arguments) != `{"path":"/a.txt","content":"x"}` || a.SessionID != res.SessionID ||
			a.EndedAt == nil || a.Decision.At == nil || a.CreatedAt.IsZero() {
			t.Fatalf("record %+v", a)
		}
		return a
	}
	expect := func(name string, a protocol.AuditRecord, status, outcome, by, device string) {
		t.Helper()
		d := a.Decision
		if a.Status != status || d.Outcome != outcome || d.By != by || d.DeviceID != device {
			t.Fatalf("%s: status %s, decision %+v; want %s, %s by %s on %q", name, a.Status, d, status, outcome, by, device)
		}
	}

	for _, mode := range []string{protocol.ModeEdit, protocol.ModeBypass} {
		a := one(auto, auto.sendMode("", mode, mode))
		expect(mode, a, protocol.RTCCompleted, protocol.DecisionAllowed, protocol.DecidedByWorkMode, "")
		if a.WorkMode != mode || a.NeedsConfirmation || a.DeliveredAt == nil || a.StartedAt == nil || string(a.Output) != `"wrote 1 bytes to /a.txt"` {
			t.Fatalf("%s: %+v", mode, a)
		}
	}
	a := one(auto, auto.sendMode("", protocol.ModePlan, protocol.ModePlan))
	expect("plan", a, protocol.RTCRejected, protocol.DecisionDenied, protocol.DecidedByWorkMode, "")
	if a.Decision.Reason == "" || a.DeliveredAt != nil {
		t.Fatalf("plan: %+v", a)
	}

	// Manual mode: a person allows on their device; the browser's execution
	// report is kept within the server's view of the call.
	res := person.sendMode("", "allow", protocol.ModeManual)
	r := person.pendingRTC()
	if !r.NeedsConfirmation {
		t.Fatalf("manual write without confirmation: %+v", r)
	}
	person.mustCall(protocol.MethodRTCUpdateStatus, protocol.RTCUpdateStatusRequest{RTCID: r.ID, Status: protocol.RTCExecuting, ClientID: "x1"}, nil)
	far := time.Now().Add(-time.Hour)
	person.mustCall(protocol.MethodRTCSubmitResult, protocol.RTCSubmitResultRequest{RTCID: r.ID, ClientID: "r1", OK: true, Output: jsonOf("done"),
		Execution: &protocol.RTCExecution{StartedAt: far, EndedAt: time.Now().Add(time.Hour), Outcome: "ok"}}, nil)
	a = one(person, res)
	expect("allow", a, protocol.RTCCompleted, protocol.DecisionAllowed, protocol.DecidedByUser, "dev-b")
	if e := a.Execution; e == nil || e.Outcome != "ok" || e.StartedAt.Before(*a.DeliveredAt) || e.EndedAt.After(*a.EndedAt) || e.EndedAt.Before(e.StartedAt) {
		t.Fatalf("execution not clamped: %+v (delivered %v, ended %v)", a.Execution, a.DeliveredAt, a.EndedAt)
	}
	if a.StartedAt == nil || a.Decision.At.Before(*a.DeliveredAt) {
		t.Fatalf("allow timings: %+v", a)
	}

	// "Allow for this chat": the decision keeps its scope; the next call of the
	// tool in that chat runs unasked, recorded as standing on the same approval.
	res = person.sendMode("", "for this chat", protocol.ModeManual)
	r = person.pendingRTC()
	person.mustCall(protocol.MethodRTCUpdateStatus, protocol.RTCUpdateStatusRequest{RTCID: r.ID, Status: protocol.RTCExecuting, ClientID: "x-s",
		Approval: &protocol.ApprovalAnswer{Scope: protocol.ScopeSession}}, nil)
	person.mustCall(protocol.MethodRTCSubmitResult, protocol.RTCSubmitResultRequest{RTCID: r.ID, ClientID: "r-s", OK: true, Output: jsonOf("done")}, nil)
	a = one(person, res)
	expect("allow for this chat", a, protocol.RTCCompleted, protocol.DecisionAllowed, protocol.DecidedByUser, "dev-b")
	if a.Decision.Scope != protocol.ScopeSession || a.Decision.Standing {
		t.Fatalf("allow for this chat: %+v", a.Decision)
	}

	// A person refuses, with a reason.
	res = person.sendMode("", "deny", protocol.ModeManual)
	r = person.pendingRTC()
	person.mustCall(protocol.MethodRTCUpdateStatus, protocol.RTCUpdateStatusRequest{RTCID: r.ID, Status: protocol.RTCRejected, ClientID: "x2", Reason: "not that file",
		Approval: &protocol.ApprovalAnswer{Reason: "not that file"}}, nil)
	a = one(person, res)
	expect("deny", a, protocol.RTCRejected, protocol.DecisionDenied, protocol.DecidedByUser, "dev-b")
	if a.Decision.Reason != "not that file" || a.Execution != nil {
		t.Fatalf("deny: %+v", a)
	}

	// Nobody answers before the deadline.
	a = one(person, person.sendMode("", "silence", protocol.ModeManual))
	expect("timeout", a, protocol.RTCTimeout, protocol.DecisionTimeout, protocol.DecidedByServer, "")

	// A bad execution report is refused with a stable code; the audit list is
	// the caller's own.
	res = person.sendMode("", "bad report", protocol.ModeManual)
	r = person.pendingRTC()
	_, err := person.call(t.Context(), protocol.MethodRTCSubmitResult, protocol.RTCSubmitResultRequest{RTCID: r.ID, ClientID: "r3", OK: true,
		Execution: &protocol.RTCExecution{StartedAt: time.Now(), EndedAt: time.Now(), Outcome: "maybe"}})
	if pe, ok := err.(*protocol.Error); !ok || pe.Code != protocol.CodeInvalidArgument {
		t.Fatalf("bad outcome: %v", err)
	}
	_, err = auto.call(t.Context(), protocol.MethodAuditList, protocol.AuditListRequest{SessionID: res.SessionID})
	if pe, ok := err.(*protocol.Error); !ok || pe.Code != protocol.CodeNotFound {
		t.Fatalf("another user's session: %v", err)
	}
	var all protocol.AuditListResult
	auto.mustCall(protocol.MethodAuditList, protocol.AuditListRequest{Limit: 2}, &all)
	if len(all.Records) != 2 || all.NextCursor == "" || all.Records[0].UserID != "alice" {
		t.Fatalf("page: %+v", all)
	}
	var rest protocol.AuditListResult
	auto.mustCall(protocol.MethodAuditList, protocol.AuditListRequest{Cursor: all.NextCursor}, &rest)
	if len(rest.Records) != 1 || rest.NextCursor != "" || rest.Records[0].RTCID == all.Records[1].RTCID {
		t.Fatalf("second page: %+v", rest)
	}
}

// secondTurn runs a turn in a new session, calls before, then runs a second
// turn of the session to its completion: what a warm server does.
func (b *browser) secondTurn(before func()) protocol.MessageSendResult {
	b.t.Helper()
	warm := b.send("", "warm up")
	b.waitTurn(warm.TurnID, 10*time.Second)
	before()
	res := b.send(warm.SessionID, "again")
	if tr := b.waitTurn(res.TurnID, 10*time.Second); tr.Status != protocol.TurnCompleted {
		b.t.Fatalf("turn %s", tr.Status)
	}
	return res
}

// A tool round trip writes its call's audit record at each transition in the
// RTC's own row (the record's state travels with the RTC), never reading the
// record back and writing no row apart, and the record comes out whole.
func TestAuditWrittenWithoutReads(t *testing.T) {
	s := startServer(t, mustScript(t, oneWriteScript))
	b := newBrowser(t, s, "alice", "dev-a")
	var before store.TableCounts
	res := b.secondTurn(func() { before = store.ReadTableCounts() })
	got := store.ReadTableCounts().Sub(before)
	if got["select audit"] != 0 || got["insert rtcs"]+got["update rtcs"] != 3 {
		t.Fatalf("one round trip: %d audit reads, %d RTC writes; want 0 and 3 (created, executing, completed): %v",
			got["select audit"], got["insert rtcs"]+got["update rtcs"], got)
	}
	var rec *protocol.AuditRecord
	for _, a := range b.auditOf(res.SessionID) {
		if a.TurnID == res.TurnID {
			rec = &a
		}
	}
	if rec == nil || rec.Status != protocol.RTCCompleted || rec.DeliveredAt == nil || rec.StartedAt == nil || rec.EndedAt == nil ||
		rec.Decision.Outcome != protocol.DecisionAllowed || rec.WorkMode != protocol.ModeEdit || rec.DeviceID != "dev-a" || len(rec.Output) == 0 {
		t.Fatalf("record %+v", rec)
	}
}
