package chaos

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/rtcagent/rtcagent/internal/protocol"
)

// workModes are the modes a user switches between.
var workModes = []string{protocol.ModeManual, protocol.ModeEdit, protocol.ModePlan, protocol.ModeBypass}

// act does what a person does with a session while its turn runs, with
// probability o.Actions: one or two of switching the work mode, renaming,
// closing and reopening, forking at the turn's message (the same fork asked
// twice at once and once more after, all answers compared), revoking the
// session's "Allow for this chat" approvals, switching to plan mode while the
// turn's calls are open, refusing a server call that runs, and, last,
// deleting the session. It returns the turns it started (a fork's) that the
// user then waits for.
func (u *user) act(ctx context.Context, k int64, s sent) []string {
	if !u.rng.chance(u.h.o.Actions) {
		return nil
	}
	var turns []string
	for range 1 + u.rng.intn(2) {
		time.Sleep(u.rng.dur(0, 300*time.Millisecond))
		switch a := u.rng.intn(14); {
		case a < 3:
			mode := workModes[u.rng.intn(len(workModes))]
			if u.action(ctx, "work mode", protocol.MethodSessionUpdate, protocol.SessionUpdateRequest{SessionID: s.SessionID, WorkMode: &mode}) {
				u.h.count(func(r *Report) { r.ModeChanges++ })
			}
		case a < 5:
			title := fmt.Sprintf("renamed at message %d", k)
			if u.action(ctx, "rename", protocol.MethodSessionUpdate, protocol.SessionUpdateRequest{SessionID: s.SessionID, Title: &title}) {
				u.h.count(func(r *Report) { r.Renames++ })
			}
		case a < 7:
			if !u.action(ctx, "close", protocol.MethodSessionClose, protocol.IDRequest{SessionID: s.SessionID}) {
				continue
			}
			time.Sleep(u.rng.dur(0, 200*time.Millisecond))
			if u.action(ctx, "open", protocol.MethodSessionOpen, protocol.IDRequest{SessionID: s.SessionID}) {
				u.h.count(func(r *Report) { r.CloseReopens++ })
			}
		case a < 9:
			if t := u.fork(ctx, k, s); t != "" {
				turns = append(turns, t)
			}
		case a < 11:
			u.revoke(ctx, s)
		case a < 12:
			u.planMidTurn(ctx, s)
		case a < 13:
			u.refuseRunning(ctx, s.SessionID, "")
		default:
			// Not found is an answer too: a retry after a delete whose reply was
			// lost (a node killed after the commit) finds the session gone.
			if u.action(ctx, "delete", protocol.MethodSessionDelete, protocol.IDRequest{SessionID: s.SessionID}, protocol.CodeNotFound) {
				u.h.count(func(r *Report) { r.Deletes++ })
				u.mu.Lock()
				u.deleted[s.SessionID] = true
				if u.session == s.SessionID {
					u.session = ""
				}
				u.mu.Unlock()
			}
			return turns
		}
	}
	return turns
}

// action runs one session RPC until it gets an answer. True when it succeeded
// or answered one of the done codes; not found and conflict are answers a
// session another action changed may give (already deleted, no turn to stop);
// anything else breaks the run's rules.
func (u *user) action(ctx context.Context, name, method string, params any, done ...string) bool {
	actx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	var out map[string]any
	err := u.call(actx, method, params, &out)
	if err == nil {
		return true
	}
	for _, code := range done {
		if isCode(err, code) {
			return true
		}
	}
	if isCode(err, protocol.CodeNotFound) || isCode(err, protocol.CodeConflict) {
		return false
	}
	if ctx.Err() == nil {
		u.h.breach(func(r *Report) { r.ClientErrors++ }, "%s: %s: %v", u.name, name, err)
	}
	return false
}

// fork forks the session at the turn's message: twice at once with one
// client_id, then once more; all three must name the same new session,
// message and turn. Half the time the user goes on in the fork.
func (u *user) fork(ctx context.Context, k int64, s sent) string {
	req := protocol.SessionForkRequest{ClientID: fmt.Sprintf("fork-%d", k), SessionID: s.SessionID, MessageID: s.MessageID,
		Text: fmt.Sprintf("message %d, forked", k)}
	fctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	var res [3]protocol.MessageSendResult
	var errs [3]error
	var wg sync.WaitGroup
	for i := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = u.call(fctx, protocol.MethodSessionFork, req, &res[i])
		}()
	}
	wg.Wait()
	errs[2] = u.call(fctx, protocol.MethodSessionFork, req, &res[2])
	if isCode(errs[0], protocol.CodeNotFound) && isCode(errs[1], protocol.CodeNotFound) && isCode(errs[2], protocol.CodeNotFound) {
		return "" // the session went away
	}
	u.h.count(func(r *Report) { r.Forks++ })
	if errs[0] != nil || errs[1] != nil || errs[2] != nil || res[0] != res[1] || res[1] != res[2] {
		u.h.breach(func(r *Report) { r.ForkDiffer++ }, "%s: fork %s answered %+v / %+v / %+v (errors %v / %v / %v)",
			u.name, req.ClientID, res[0], res[1], res[2], errs[0], errs[1], errs[2])
		return ""
	}
	if u.rng.chance(0.5) {
		u.mu.Lock()
		u.session = res[0].SessionID
		u.mu.Unlock()
	}
	return res[0].TurnID
}

func isCode(err error, code string) bool {
	var pe *protocol.Error
	return errors.As(err, &pe) && pe.Code == code
}
