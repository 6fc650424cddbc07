package lifecycle_test

import (
	"testing"
	"time"

	"github.com/rtcagent/rtcagent/internal/core"
	"github.com/rtcagent/rtcagent/internal/lifecycle"
	"github.com/rtcagent/rtcagent/internal/protocol"
	"github.com/rtcagent/rtcagent/internal/store"
)

// addCall adds a delivered call of tool in the fixture's turn.
func (f *fixture) addCall(t *testing.T, seq int, tool string, needsConfirmation bool) string {
	t.Helper()
	r := &protocol.RTC{ID: core.NewID(), SessionID: f.sess, TurnID: f.turn, UserID: caller.UserID, ToolCallID: core.NewID(),
		Seq: seq, Step: 1, ToolName: tool, Arguments: []byte(`{"path":"/notes.md","content":"x"}`), Status: protocol.RTCQueued,
		NeedsConfirmation: needsConfirmation, TimeoutMS: 60_000}
	write(t, f.st, func(tx store.Tx) error { return lifecycle.Deliver(tx, r, "") })
	return r.ID
}

// A browser that says it ran a call because of an "Allow for this chat" gets
// the approval the session holds recorded, never its own claim: without one,
// the call is recorded as allowed once by that device, with a note.
func TestStandingApprovalIsVerified(t *testing.T) {
	standing := &protocol.ApprovalAnswer{Scope: protocol.ScopeSession, Standing: true}
	t.Run("claimed, not held", func(t *testing.T) {
		f := newFixture(t)
		f.setTurn(t, protocol.TurnWaiting)
		id := f.addCall(t, 1, "write", true)
		err := f.run(func(tx store.Tx) error {
			_, err := lifecycle.UpdateRTCStatus(tx, caller, &protocol.RTCUpdateStatusRequest{RTCID: id, Status: protocol.RTCExecuting, Approval: standing})
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		d := f.rtc(t, id).Decision
		if d == nil || d.Standing || d.Scope != protocol.ScopeOnce || d.Reason == "" {
			t.Fatalf("decision %+v: want allowed once with a note, not standing", d)
		}
	})
	t.Run("held", func(t *testing.T) {
		f := newFixture(t)
		f.setTurn(t, protocol.TurnWaiting)
		granted := time.Now().UTC().Add(-time.Hour).Truncate(time.Millisecond)
		f.setSession(t, func(s *protocol.Session) {
			s.Approvals = []protocol.ToolApproval{{Tool: "write", DeviceID: "laptop", RTCID: "earlier", GrantedAt: granted}}
		})
		id := f.addCall(t, 1, "write", true)
		err := f.run(func(tx store.Tx) error {
			_, err := lifecycle.UpdateRTCStatus(tx, caller, &protocol.RTCUpdateStatusRequest{RTCID: id, Status: protocol.RTCExecuting, Approval: standing})
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		d := f.rtc(t, id).Decision
		if d == nil || !d.Standing || d.Scope != protocol.ScopeSession || d.DeviceID != "laptop" || !d.At.Equal(granted) {
			t.Fatalf("decision %+v: want the session's standing approval", d)
		}
	})
}

// queueCalls plans n calls of tool in the fixture's turn, delivers the first and
// returns their ids, as a model step does: calls after the first wait queued.
func (f *fixture) queueCalls(t *testing.T, n int, tool, kind string, executor string, needs bool, standing bool) []string {
	t.Helper()
	var ids []string
	write(t, f.st, func(tx store.Tx) error {
		for i := 0; i < n; i++ {
			r := &protocol.RTC{ID: core.NewID(), SessionID: f.sess, TurnID: f.turn, UserID: caller.UserID, ToolCallID: core.NewID(),
				Seq: i + 1, Step: 1, ToolName: tool, Arguments: []byte(`{"path":"/notes.md","content":"x"}`), Status: protocol.RTCQueued,
				NeedsConfirmation: needs, TimeoutMS: 60_000, Executor: executor,
				Policy: &protocol.CallPolicy{Kind: kind, AskTimeoutMS: 3_600_000}}
			if standing {
				r.Decision = &protocol.Decision{Decision: protocol.DecisionAllow, Scope: protocol.ScopeSession, Standing: true, DeviceID: "d", At: tx.Now()}
			}
			ids = append(ids, r.ID)
			var err error
			if i == 0 {
				err = lifecycle.Deliver(tx, r, "")
			} else {
				err = lifecycle.EmitRTC(tx, r, "")
			}
			if err != nil {
				return err
			}
		}
		return nil
	})
	return ids
}

// finishCall ends a browser call with a result, as the browser does.
func (f *fixture) finishCall(t *testing.T, id string) {
	t.Helper()
	write(t, f.st, func(tx store.Tx) error {
		_, err := lifecycle.SubmitResult(tx, caller, &protocol.RTCSubmitResultRequest{RTCID: id, ClientID: core.NewID(), OK: true, Output: []byte(`"ok"`)})
		return err
	})
}

func revoke(f *fixture, t *testing.T, tool string) {
	f.setSession(t, func(s *protocol.Session) { lifecycle.RevokeApprovals(s, []string{tool}) })
}

// A revoke of "Allow for this chat" reaches the calls of the step still queued:
// the next one is delivered asking (with a person's time to answer), and its
// audit record waits for the person instead of saying allowed.
func TestRevokeReachesQueuedCalls(t *testing.T) {
	f := newFixture(t)
	f.setTurn(t, protocol.TurnWaiting)
	f.setSession(t, func(s *protocol.Session) {
		s.WorkMode = protocol.ModeManual
		s.Approvals = []protocol.ToolApproval{{Tool: "write", DeviceID: "d", GrantedAt: time.Now()}}
	})
	ids := f.queueCalls(t, 2, "write", "write", protocol.RTCExecutorBrowser, false, true)
	write(t, f.st, func(tx store.Tx) error { // as the step planned it: for two quick calls
		tr, err := tx.TurnGet(f.turn)
		if err != nil {
			return err
		}
		tr.Checkpoint = &protocol.TurnCheckpoint{ExpiresAt: tx.Now().Add(2 * time.Minute)}
		return tx.TurnUpdate(tr, tr.Status)
	})
	revoke(f, t, "write")
	f.finishCall(t, ids[0])
	next := f.rtc(t, ids[1])
	if next.Status != protocol.RTCPending || !next.NeedsConfirmation || next.Decision != nil {
		t.Fatalf("next call after the revoke: %s needs=%v decision=%+v; want pending, asking", next.Status, next.NeedsConfirmation, next.Decision)
	}
	if next.TimeoutMS != 3_600_000 || next.DeadlineAt == nil || next.DeadlineAt.Before(time.Now().Add(50*time.Minute)) {
		t.Fatalf("budget %d ms, deadline %v: want the person's", next.TimeoutMS, next.DeadlineAt)
	}
	cp := f.getTurn(t, f.turn).Checkpoint
	if cp == nil || cp.ExpiresAt.Before(*next.DeadlineAt) {
		t.Fatalf("checkpoint %+v ends before the person's deadline %v", cp, next.DeadlineAt)
	}
	var a *protocol.AuditRecord
	_ = f.st.Read(ctx, func(tx store.Tx) error { var err error; a, err = tx.AuditGet(next.ID); return err })
	if a == nil || a.Decision.Outcome != "" || !a.NeedsConfirmation {
		t.Fatalf("audit of the next call: %+v", a)
	}
}

// A switch to plan mode reaches the calls still queued: each ends rejected as
// plan mode refuses, and the turn resumes with nothing left to run.
func TestPlanModeReachesQueuedCalls(t *testing.T) {
	f := newFixture(t)
	f.setTurn(t, protocol.TurnWaiting)
	f.setSession(t, func(s *protocol.Session) { s.WorkMode = protocol.ModeBypass })
	ids := f.queueCalls(t, 3, "write", "write", protocol.RTCExecutorBrowser, false, false)
	f.setSession(t, func(s *protocol.Session) { s.WorkMode = protocol.ModePlan })
	f.finishCall(t, ids[0])
	for _, id := range ids[1:] {
		if r := f.rtc(t, id); r.Status != protocol.RTCRejected {
			t.Fatalf("queued call after plan mode: %s, want rejected", r.Status)
		}
	}
	if it := f.inbox(t); it == nil || it.Kind != core.KindTurnResume {
		t.Fatalf("inbox %+v: want the turn's resumption", it)
	}
}

// A server call already handed to the worker is decided again when it starts:
// after a revoke it waits for the person's approval; in plan mode it ends
// rejected; neither runs.
func TestServerCallStartDecidesAgain(t *testing.T) {
	for _, c := range []struct {
		name   string
		change func(s *protocol.Session)
		want   string
	}{
		{"revoked", func(s *protocol.Session) { lifecycle.RevokeApprovals(s, []string{"files__write"}) }, protocol.RTCPending},
		{"plan mode", func(s *protocol.Session) { s.WorkMode = protocol.ModePlan }, protocol.RTCRejected},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := newFixture(t)
			f.setTurn(t, protocol.TurnWaiting)
			f.setSession(t, func(s *protocol.Session) {
				s.WorkMode = protocol.ModeManual
				s.Approvals = []protocol.ToolApproval{{Tool: "files__write", DeviceID: "d", GrantedAt: time.Now()}}
			})
			ids := f.queueCalls(t, 1, "files__write", "server", protocol.RTCExecutorServer, false, true)
			if it := f.inbox(t); it == nil || it.Kind != core.KindRTCExecute {
				t.Fatalf("inbox %+v: want the call handed to the worker", it)
			}
			f.setSession(t, c.change)
			var started bool
			write(t, f.st, func(tx store.Tx) error {
				r, err := tx.RTCGet(ids[0])
				if err != nil {
					return err
				}
				started, err = lifecycle.StartServerRTC(tx, r)
				return err
			})
			r := f.rtc(t, ids[0])
			if started || r.Status != c.want {
				t.Fatalf("started=%v status %s, want not started and %s", started, r.Status, c.want)
			}
			if c.want == protocol.RTCPending && (!r.NeedsConfirmation || r.DeadlineAt == nil || r.DeadlineAt.Before(time.Now().Add(50*time.Minute))) {
				t.Fatalf("the revoked call: needs confirmation %v, deadline %v; want it to ask with the person's time", r.NeedsConfirmation, r.DeadlineAt)
			}
		})
	}
}

// A server call that is running can no longer be refused: the refusal is a
// conflict, and the call keeps running to its own end.
func TestRefusingARunningServerCall(t *testing.T) {
	f := newFixture(t)
	f.setTurn(t, protocol.TurnWaiting)
	f.setSession(t, func(s *protocol.Session) { s.WorkMode = protocol.ModeBypass })
	ids := f.queueCalls(t, 1, "files__write", "server", protocol.RTCExecutorServer, false, false)
	write(t, f.st, func(tx store.Tx) error {
		r, err := tx.RTCGet(ids[0])
		if err != nil {
			return err
		}
		_, err = lifecycle.StartServerRTC(tx, r)
		return err
	})
	err := f.run(func(tx store.Tx) error {
		_, err := lifecycle.UpdateRTCStatus(tx, caller, &protocol.RTCUpdateStatusRequest{RTCID: ids[0], Status: protocol.RTCRejected, ClientID: "x",
			Reason: "no", Approval: &protocol.ApprovalAnswer{Reason: "no"}})
		return err
	})
	if code(err) != protocol.CodeConflict {
		t.Fatalf("refusing a running server call: %v, want conflict", err)
	}
	if r := f.rtc(t, ids[0]); r.Status != protocol.RTCExecuting {
		t.Fatalf("status %s after the refused refusal", r.Status)
	}
}
