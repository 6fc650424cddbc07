package chaos

import (
	"bytes"
	"context"
	"encoding/json"
	"time"

	"github.com/rtcagent/rtcagent/internal/protocol"
	"github.com/rtcagent/rtcagent/internal/testkit/simclient"
)

// The person's decisions about the calls of a turn: answering the calls that
// ask ("Allow for this chat" half the time), revoking those approvals,
// switching to plan mode while calls wait in the queue, and trying to refuse a
// server call that already runs. The history check (replay.call) holds the
// server to them.

// confirm answers a call that asks: mostly allowed, half of those for the
// whole chat, sometimes refused. Soon after, while the step's later calls wait
// in the queue, the person sometimes revokes the approval they just gave, or
// switches to plan mode for a moment; after allowing a server call they
// sometimes try to refuse it while it runs.
func (u *user) confirm(ctx context.Context, r protocol.RTC) simclient.Answer {
	time.Sleep(u.rng.dur(0, 60*time.Millisecond))
	if u.rng.chance(0.08) {
		u.h.count(func(rep *Report) { rep.Declines++ })
		return simclient.Answer{Reason: "not now"}
	}
	a := simclient.Answer{Allow: true, ForChat: u.rng.chance(0.5)}
	u.h.count(func(rep *Report) {
		rep.Confirms++
		if a.ForChat {
			rep.AllowedForChat++
		}
	})
	switch {
	case a.ForChat && u.rng.chance(0.4):
		pause := u.rng.dur(0, 200*time.Millisecond)
		u.later(func(ctx context.Context) {
			time.Sleep(pause)
			u.revokeTools(ctx, r.SessionID, []string{r.ToolName})
		})
	case u.rng.chance(0.1):
		u.later(func(ctx context.Context) { u.planForAMoment(ctx, r.SessionID) })
	}
	if r.Executor == protocol.RTCExecutorServer && u.rng.chance(0.3) {
		u.later(func(ctx context.Context) { u.refuseRunning(ctx, r.SessionID, r.ID) })
	}
	return a
}

// later runs f beside the browser's execution, within the run; the run waits
// for it before it checks, and once the checks began nothing more starts.
func (u *user) later(f func(ctx context.Context)) {
	u.h.mu.Lock()
	if u.h.checking {
		u.h.mu.Unlock()
		return
	}
	u.h.extra.Add(1)
	u.h.mu.Unlock()
	go func() {
		defer u.h.extra.Done()
		f(u.h.ctx)
	}()
}

// waitFor waits up to d for a folded entity of kind that match accepts.
func (u *user) waitFor(ctx context.Context, d time.Duration, kind string, match func(id string, data []byte) bool) (string, []byte, bool) {
	wctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	id, e, err := u.profile.WaitEntity(wctx, kind, func(id string, e simclient.Entity) bool { return match(id, e.Data) })
	return id, e.Data, err == nil
}

// has is a quick test of a compact JSON field before decoding.
func has(data []byte, field, value string) bool {
	return bytes.Contains(data, []byte(`"`+field+`":"`+value+`"`))
}

// revoke waits until the session holds an "Allow for this chat" and revokes
// every tool it holds, while the turn's calls run or wait.
func (u *user) revoke(ctx context.Context, s sent) {
	_, data, ok := u.waitFor(ctx, 2*time.Second, simclient.KindSession, func(id string, data []byte) bool {
		return id == s.SessionID && bytes.Contains(data, []byte(`"approvals":[`))
	})
	if !ok {
		return
	}
	var sess protocol.Session
	if json.Unmarshal(data, &sess) != nil || len(sess.Approvals) == 0 {
		return
	}
	var names []string
	for _, a := range sess.Approvals {
		names = append(names, a.Tool)
	}
	u.revokeTools(ctx, s.SessionID, names)
}

// revokeTools revokes "Allow for this chat" of tools in a session.
func (u *user) revokeTools(ctx context.Context, sessionID string, names []string) {
	if u.action(ctx, "revoke", protocol.MethodSessionUpdate, protocol.SessionUpdateRequest{SessionID: sessionID, RevokeApprovals: names}) {
		u.h.count(func(r *Report) { r.Revokes++ })
	}
}

// planMidTurn waits until a call of the turn is open (queued, delivered or
// running) and switches the session to plan mode (planForAMoment).
func (u *user) planMidTurn(ctx context.Context, s sent) {
	_, _, ok := u.waitFor(ctx, 2*time.Second, simclient.KindRTC, func(_ string, data []byte) bool {
		return has(data, "turn_id", s.TurnID) && (has(data, "status", protocol.RTCQueued) || has(data, "status", protocol.RTCPending) ||
			has(data, "status", protocol.RTCExecuting))
	})
	if !ok {
		return
	}
	u.planForAMoment(ctx, s.SessionID)
}

// planForAMoment switches the session to plan mode and, most of the time,
// back to edit mode a moment later (the later turns of the session would
// otherwise run nothing with effects).
func (u *user) planForAMoment(ctx context.Context, sessionID string) {
	mode := protocol.ModePlan
	if !u.action(ctx, "plan mode", protocol.MethodSessionUpdate, protocol.SessionUpdateRequest{SessionID: sessionID, WorkMode: &mode}) {
		return
	}
	u.h.count(func(r *Report) { r.ModeChanges++; r.PlanSwitches++ })
	if !u.rng.chance(0.8) {
		return
	}
	time.Sleep(u.rng.dur(0, 400*time.Millisecond))
	mode = protocol.ModeEdit
	if u.action(ctx, "work mode", protocol.MethodSessionUpdate, protocol.SessionUpdateRequest{SessionID: sessionID, WorkMode: &mode}) {
		u.h.count(func(r *Report) { r.ModeChanges++ })
	}
}

// refuseRunning waits until a server call of the session (rtcID, or any) is
// executing and refuses it, as a person pressing "Reject" on a card that
// already runs: the server must answer conflict (it may have taken effect;
// stopping the turn is the way), never accept it.
func (u *user) refuseRunning(ctx context.Context, sessionID, rtcID string) {
	id, _, ok := u.waitFor(ctx, 3*time.Second, simclient.KindRTC, func(id string, data []byte) bool {
		return (rtcID == "" || id == rtcID) && has(data, "session_id", sessionID) && has(data, "executor", protocol.RTCExecutorServer) &&
			has(data, "status", protocol.RTCExecuting)
	})
	if !ok {
		return
	}
	actx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	var out protocol.RTCResult
	err := u.call(actx, protocol.MethodRTCUpdateStatus, protocol.RTCUpdateStatusRequest{RTCID: id, Status: protocol.RTCRejected,
		ClientID: "refuse-" + id, Reason: "changed my mind", Approval: &protocol.ApprovalAnswer{Reason: "changed my mind"}}, &out)
	switch {
	case err == nil:
		u.h.breach(func(r *Report) { r.RefusedRunning++ }, "%s: refusing server call %s while it ran was accepted (now %s)", u.name, id, out.RTC.Status)
	case isCode(err, protocol.CodeConflict):
		u.h.count(func(r *Report) { r.RefuseRunning++ })
	case isCode(err, protocol.CodeNotFound):
	case actx.Err() == nil:
		u.h.breach(func(r *Report) { r.ClientErrors++ }, "%s: refuse running %s: %v", u.name, id, err)
	}
}
