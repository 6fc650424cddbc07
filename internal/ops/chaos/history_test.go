package chaos

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/rtcagent/rtcagent/internal/protocol"
	"github.com/rtcagent/rtcagent/internal/tools"
)

// replayOf folds updates made of entities, one offset each, and runs the end checks.
func replayOf(t *testing.T, deleted []string, listed []string, ents ...any) *Report {
	t.Helper()
	h := &harness{}
	u := &user{h: h, name: "u", deleted: map[string]bool{}}
	for _, id := range deleted {
		u.deleted[id] = true
	}
	rp := newReplay(h, u)
	for i, e := range ents {
		var typ string
		switch e.(type) {
		case protocol.Session:
			typ = protocol.UpdSessionUpdated
		case protocol.Turn:
			typ = protocol.UpdTurnUpdated
		case protocol.Message:
			typ = protocol.UpdMessageUpdated
		case protocol.RTC:
			typ = protocol.UpdRTCUpdated
		}
		data, _ := json.Marshal(e)
		rp.apply(protocol.Update{Offset: int64(i + 1), Changes: []protocol.Change{{Type: typ, Data: data}}})
	}
	l := map[string]bool{}
	for _, id := range listed {
		l[id] = true
	}
	rp.settled(l)
	return &h.report
}

func TestReplayInvariants(t *testing.T) {
	s := protocol.Session{ID: "s", Status: protocol.SessionOpen}
	gone := s
	gone.Deleted = true
	msg := protocol.Message{ID: "m", SessionID: "s", TurnID: "t1", Status: protocol.MessageComplete}
	t1 := protocol.Turn{ID: "t1", SessionID: "s", Status: protocol.TurnRunning}
	t1done := t1
	t1done.Status = protocol.TurnCompleted
	t2 := protocol.Turn{ID: "t2", SessionID: "s", Status: protocol.TurnRunning}
	t2done := t2
	t2done.Status = protocol.TurnStopped
	t2queued := t2
	t2queued.Status = protocol.TurnQueued
	streaming := protocol.Message{ID: "a", SessionID: "s", TurnID: "t2", Status: protocol.MessageStreaming}
	active := s
	active.ActiveTurnID = "t1"

	for _, c := range []struct {
		name    string
		deleted []string
		listed  []string
		ents    []any
		check   func(r *Report) int
	}{
		{"healthy", nil, []string{"s"}, []any{s, msg, t1, t1done, t2, t2done}, func(r *Report) int {
			return len(r.FailedDetails) + 1 // 1 = held
		}},
		{"reappeared in the history", []string{"s"}, nil, []any{s, msg, gone, s}, func(r *Report) int { return r.Reappeared }},
		{"reappeared in the list", []string{"s"}, []string{"s"}, []any{s, msg}, func(r *Report) int { return r.Reappeared }},
		{"two active turns", nil, []string{"s"}, []any{s, msg, t1, t2, t1done, t2done}, func(r *Report) int { return r.TwoActive }},
		{"streaming in an ended turn", nil, []string{"s"}, []any{s, msg, t2, streaming, t2done}, func(r *Report) int { return r.StreamingEnded }},
		{"queued and none active", nil, []string{"s"}, []any{s, msg, t1, t1done, t2queued}, func(r *Report) int { return r.Wedged }},
		{"active turn id of an ended turn", nil, []string{"s"}, []any{active, msg, t1, t1done}, func(r *Report) int { return r.Wedged }},
		{"empty session", nil, []string{"s"}, []any{s}, func(r *Report) int { return r.ForkDiffer }},
		{"turns of a deleted session count", []string{"s"}, nil, []any{s, msg, t1, t1done, gone}, func(r *Report) int { return r.Turns }},
	} {
		r := replayOf(t, c.deleted, c.listed, c.ents...)
		if got := c.check(r); got != 1 {
			t.Errorf("%s: counted %d, want 1 (%v)", c.name, got, r.FailedDetails)
		}
	}
}

// TestDecisionsHold: a call may not run after a committed decision that forbade
// it (a revoke of the approval it was to run on unasked, plan mode), unless it
// was delivered (a server call: started) before that decision; and a server
// call that ran is never refused after.
func TestDecisionsHold(t *testing.T) {
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	approval := protocol.ToolApproval{Tool: "write", DeviceID: "d", RTCID: "r0", GrantedAt: at}
	manual := protocol.Session{ID: "s", Status: protocol.SessionOpen, WorkMode: protocol.ModeManual}
	allowed := manual
	allowed.Approvals = []protocol.ToolApproval{approval}
	plan := manual
	plan.WorkMode = protocol.ModePlan
	msg := protocol.Message{ID: "m", SessionID: "s", TurnID: "t", Status: protocol.MessageComplete}

	standing := &protocol.Decision{Decision: protocol.DecisionAllow, Scope: protocol.ScopeSession, Standing: true, DeviceID: "d", At: at}
	write := func(status string, asks bool, d *protocol.Decision) protocol.RTC {
		return protocol.RTC{ID: "r1", SessionID: "s", TurnID: "t", ToolName: "write", Arguments: json.RawMessage(`{"path":"/a.txt","content":"x"}`),
			Status: status, NeedsConfirmation: asks, Decision: d, Policy: &protocol.CallPolicy{Kind: "write"}}
	}
	result := write(protocol.RTCCompleted, false, standing)
	result.ClientID = "res-r1"
	sleep := func(status string, approved bool) protocol.RTC {
		r := protocol.RTC{ID: "r2", SessionID: "s", TurnID: "t", ToolName: "mcp__sleep", Arguments: json.RawMessage(`{"ms":1}`),
			Status: status, NeedsConfirmation: true, Executor: protocol.RTCExecutorServer, Policy: &protocol.CallPolicy{Kind: "server"}}
		if approved {
			r.Decision = &protocol.Decision{Decision: protocol.DecisionAllow, Scope: protocol.ScopeOnce, At: at}
		}
		return r
	}
	refused := sleep(protocol.RTCRejected, true)
	refused.Decision = &protocol.Decision{Decision: protocol.DecisionDeny, Scope: protocol.ScopeOnce, At: at}
	ranDenied := sleep(protocol.RTCCompleted, true)
	ranDenied.Decision = refused.Decision

	for _, c := range []struct {
		name       string
		ents       []any
		forbidden  int
		refusedRun int
	}{
		{"unasked on an approval held at delivery", []any{allowed, msg, write(protocol.RTCQueued, false, standing),
			write(protocol.RTCPending, false, standing), write(protocol.RTCExecuting, false, standing), result}, 0, 0},
		{"revoked after delivery: it may run", []any{allowed, msg, write(protocol.RTCPending, false, standing), manual,
			write(protocol.RTCExecuting, false, standing), result}, 0, 0},
		{"revoked before delivery, asked again", []any{allowed, msg, write(protocol.RTCQueued, false, standing), manual,
			write(protocol.RTCPending, true, nil), write(protocol.RTCExecuting, true, nil)}, 0, 0},
		{"revoked before delivery, delivered unasked and run", []any{allowed, msg, write(protocol.RTCQueued, false, standing), manual,
			write(protocol.RTCPending, false, standing), write(protocol.RTCExecuting, false, standing), result}, 1, 0},
		{"revoked before delivery, a browser result", []any{allowed, msg, manual, write(protocol.RTCPending, false, standing), result}, 1, 0},
		{"delivered against a revoke but never run", []any{allowed, msg, manual, write(protocol.RTCPending, false, standing),
			write(protocol.RTCTimeout, false, standing)}, 0, 0},
		{"plan mode before delivery, run", []any{allowed, msg, plan, write(protocol.RTCPending, true, nil), write(protocol.RTCExecuting, true, nil)}, 1, 0},
		{"plan mode after delivery", []any{manual, msg, write(protocol.RTCPending, true, nil), plan, write(protocol.RTCExecuting, true, nil)}, 0, 0},
		{"server call approved, plan mode before its start", []any{manual, msg, sleep(protocol.RTCPending, false), sleep(protocol.RTCPending, true), plan,
			sleep(protocol.RTCExecuting, true), sleep(protocol.RTCCompleted, true)}, 1, 0},
		{"server call approved, plan mode after its start", []any{manual, msg, sleep(protocol.RTCPending, true), sleep(protocol.RTCExecuting, true), plan,
			sleep(protocol.RTCCompleted, true)}, 0, 0},
		{"server call refused before it ran", []any{manual, msg, sleep(protocol.RTCPending, false), refused}, 0, 0},
		{"server call refused while it ran", []any{manual, msg, sleep(protocol.RTCExecuting, true), refused}, 0, 1},
		{"server call that ran recorded as denied", []any{manual, msg, sleep(protocol.RTCExecuting, true), ranDenied}, 0, 1},
	} {
		r := replayOf(t, nil, []string{"s"}, c.ents...)
		if r.RanForbidden != c.forbidden || r.RefusedRunning != c.refusedRun {
			t.Errorf("%s: ran forbidden %d, refused running %d; want %d, %d (%v)", c.name, r.RanForbidden, r.RefusedRunning, c.forbidden, c.refusedRun, r.FailedDetails)
		}
		if want := c.forbidden + c.refusedRun; len(r.FailedDetails) != want {
			t.Errorf("%s: %d breaches, want %d: %v", c.name, len(r.FailedDetails), want, r.FailedDetails)
		}
	}
}

// TestDecidedAgainCounted: the report shows the decisions reaching queued and
// delivered calls (asked after a revoke, refused by plan mode).
func TestDecidedAgainCounted(t *testing.T) {
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	allowed := protocol.Session{ID: "s", Status: protocol.SessionOpen, WorkMode: protocol.ModeManual,
		Approvals: []protocol.ToolApproval{{Tool: "mcp__sleep", DeviceID: "d", GrantedAt: at}}}
	revoked := allowed
	revoked.Approvals = nil
	plan := revoked
	plan.WorkMode = protocol.ModePlan
	msg := protocol.Message{ID: "m", SessionID: "s", TurnID: "t", Status: protocol.MessageComplete}
	standing := &protocol.Decision{Decision: protocol.DecisionAllow, Scope: protocol.ScopeSession, Standing: true, At: at}
	sleep := func(id, status string, asks bool) protocol.RTC {
		r := protocol.RTC{ID: id, SessionID: "s", TurnID: "t", ToolName: "mcp__sleep", Arguments: json.RawMessage(`{"ms":1}`),
			Status: status, NeedsConfirmation: asks, Executor: protocol.RTCExecutorServer, Policy: &protocol.CallPolicy{Kind: "server"}}
		if !asks {
			r.Decision = standing
		}
		return r
	}
	refused := sleep("r2", protocol.RTCRejected, false)
	refused.Error = tools.PlanRefusal("mcp__sleep")
	r := replayOf(t, nil, []string{"s"}, allowed, msg, sleep("r1", protocol.RTCPending, false), sleep("r2", protocol.RTCQueued, false), revoked,
		sleep("r1", protocol.RTCPending, true), plan, refused)
	if r.AskedAgain != 1 || r.PlanRefused != 1 || len(r.FailedDetails) != 0 {
		t.Fatalf("asked again %d, plan refused %d: %v", r.AskedAgain, r.PlanRefused, r.FailedDetails)
	}
}
