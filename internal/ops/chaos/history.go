package chaos

import (
	"encoding/json"
	"fmt"
	"slices"

	"github.com/rtcagent/rtcagent/internal/protocol"
	"github.com/rtcagent/rtcagent/internal/tools"
)

// replay folds a user's history (v1.update.list from the first offset) in
// offset order, which is commit order, and checks the invariants about the
// states the sessions went through, not only where they ended.
type replay struct {
	h        *harness
	user     *user
	sessions map[string]protocol.Session
	turns    map[string]protocol.Turn
	messages map[string]protocol.Message
	deleted  map[string]int64 // offset at which a session was first deleted
	calls    map[string]*call // by RTC id
	reported map[string]bool  // session id + invariant, so each counts once
}

// call is what the replay knows of one RTC: its go-ahead (the offset of its
// delivery, pending, for a browser call; of its start, executing, for a server
// call), what forbade it then, and whether the server started it.
type call struct {
	goAhead   int64
	forbidden string // why the session, as committed before the go-ahead, forbids it to run; "" allows it
	started   bool   // a server call that was executing
	seen      bool   // an earlier state is known: status, asks
	status    string
	asks      bool
}

func newReplay(h *harness, u *user) *replay {
	return &replay{h: h, user: u, sessions: map[string]protocol.Session{}, turns: map[string]protocol.Turn{},
		messages: map[string]protocol.Message{}, deleted: map[string]int64{}, calls: map[string]*call{}, reported: map[string]bool{}}
}

func (p *replay) once(key string) bool {
	if p.reported[key] {
		return false
	}
	p.reported[key] = true
	return true
}

func active(status string) bool {
	return status == protocol.TurnRunning || status == protocol.TurnWaiting
}

// apply folds one update: a deleted session must stay deleted, and a session
// never has two turns running or waiting at once once the update is applied
// (its changes commit together).
func (p *replay) apply(up protocol.Update) {
	var touched []protocol.Turn
	for _, ch := range up.Changes {
		if t, ok := p.applyChange(up.Offset, ch); ok {
			touched = append(touched, t)
		}
	}
	for _, t := range touched {
		t = p.turns[t.ID]
		if !active(t.Status) {
			continue
		}
		for _, o := range p.turns {
			if o.ID != t.ID && o.SessionID == t.SessionID && active(o.Status) && p.once(t.SessionID+" two active") {
				p.h.breach(func(r *Report) { r.TwoActive++ }, "%s: session %s has turns %s (%s) and %s (%s) active at offset %d",
					p.user.name, t.SessionID, o.ID, o.Status, t.ID, t.Status, up.Offset)
			}
		}
	}
}

// applyChange folds one entity of the update at offset; it returns the turn
// when the change was one.
func (p *replay) applyChange(offset int64, ch protocol.Change) (protocol.Turn, bool) {
	switch ch.Type {
	case protocol.UpdSessionCreated, protocol.UpdSessionUpdated:
		var s protocol.Session
		if json.Unmarshal(ch.Data, &s) != nil {
			break
		}
		p.sessions[s.ID] = s
		at, was := p.deleted[s.ID]
		switch {
		case s.Deleted && !was:
			p.deleted[s.ID] = offset
		case !s.Deleted && was && p.once(s.ID+" reappeared"):
			p.h.breach(func(r *Report) { r.Reappeared++ }, "%s: session %s deleted at offset %d is back at offset %d", p.user.name, s.ID, at, offset)
		}
	case protocol.UpdTurnCreated, protocol.UpdTurnUpdated:
		var t protocol.Turn
		if json.Unmarshal(ch.Data, &t) != nil {
			break
		}
		p.turns[t.ID] = t
		return t, true
	case protocol.UpdMessageCreated, protocol.UpdMessageUpdated:
		var m protocol.Message
		if json.Unmarshal(ch.Data, &m) == nil {
			p.messages[m.ID] = m
		}
	case protocol.UpdRTCUpdated:
		var r protocol.RTC
		if json.Unmarshal(ch.Data, &r) == nil {
			p.call(offset, &r)
		}
	}
	return protocol.Turn{}, false
}

// call checks that the person's decisions hold for r. No call runs after a
// committed decision that forbade it: at its go-ahead the session (its work
// mode and "Allow for this chat" list as committed at a lower offset) must not
// refuse it (plan mode), and a call that runs unasked must not need a person
// then (an approval revoked, a stricter mode). A decision committed after the
// go-ahead finds the call delivered or started, which it may not stop. A call
// runs when it is executing, or has a browser's result. And a server call that
// was executing is never refused after it: its end and its decision say it ran.
func (p *replay) call(off int64, r *protocol.RTC) {
	c := p.calls[r.ID]
	if c == nil {
		c = &call{}
		p.calls[r.ID] = c
	}
	server := r.Executor == protocol.RTCExecutorServer
	// What the server decided again (counted, to show the decisions reached
	// calls): asked again after a revoke or a stricter mode, refused by plan
	// mode after it was planned.
	if c.seen && !c.asks && (c.status == protocol.RTCQueued || c.status == protocol.RTCPending) &&
		r.Status == protocol.RTCPending && r.NeedsConfirmation && !r.Approved() {
		p.h.count(func(rep *Report) { rep.AskedAgain++ })
	}
	if c.seen && !protocol.RTCTerminal(c.status) && r.Status == protocol.RTCRejected && r.Error == tools.PlanRefusal(r.ToolName) {
		p.h.count(func(rep *Report) { rep.PlanRefused++ })
	}
	c.seen, c.status, c.asks = true, r.Status, r.NeedsConfirmation
	if c.goAhead == 0 && ((server && r.Status == protocol.RTCExecuting) || (!server && r.Status == protocol.RTCPending)) {
		c.goAhead, c.forbidden = off, p.forbids(r)
	}
	ran := r.Status == protocol.RTCExecuting ||
		(!server && r.ClientID != "" && (r.Status == protocol.RTCCompleted || r.Status == protocol.RTCFailed))
	if ran && c.forbidden != "" && p.once(r.ID+" forbidden") {
		p.h.breach(func(rep *Report) { rep.RanForbidden++ }, "%s: rtc %s (%s) ran (%s at offset %d) though at its go-ahead, offset %d, %s",
			p.user.name, r.ID, r.ToolName, r.Status, off, c.goAhead, c.forbidden)
	}
	if server && r.Status == protocol.RTCExecuting && !c.started {
		c.started = true
		p.h.count(func(rep *Report) { rep.ServerCalls++ })
	}
	denied := r.Status == protocol.RTCRejected || (r.Decision != nil && r.Decision.Decision == protocol.DecisionDeny)
	if c.started && denied && p.once(r.ID+" refused running") {
		p.h.breach(func(rep *Report) { rep.RefusedRunning++ }, "%s: server rtc %s (%s) ran, then is %s with decision %+v at offset %d",
			p.user.name, r.ID, r.ToolName, r.Status, r.Decision, off)
	}
}

// forbids says why the session as committed so far forbids r to run at its
// go-ahead, or "". It applies the server's own rule (tools.DecideTool on the
// call's policy, then the session's approvals) to the replayed session.
func (p *replay) forbids(r *protocol.RTC) string {
	s, ok := p.sessions[r.SessionID]
	if !ok || r.Policy == nil {
		return ""
	}
	d := tools.DecideTool(s.WorkMode, tools.Tool{Kind: tools.Kind(r.Policy.Kind), Approval: r.Policy.HostApproval}, r.Arguments)
	if d.Refused {
		return fmt.Sprintf("the session was in %s mode (since offset %d or before)", s.WorkMode, s.Offset)
	}
	held := s.HasApproval(r.ToolName) && tools.AllowableForChat(r.ToolName, r.Arguments)
	if !r.NeedsConfirmation && !r.Approved() && d.NeedsConfirmation && !held {
		return fmt.Sprintf("it was to run unasked (decision %+v) while the session (%s mode, approvals %v, as of offset %d) asked for it",
			r.Decision, s.WorkMode, approvalTools(s), s.Offset)
	}
	return ""
}

func approvalTools(s protocol.Session) []string {
	var out []string
	for _, a := range s.Approvals {
		out = append(out, a.Tool)
	}
	return out
}

// settled checks the end state, after the turns settled: no message of an
// ended turn is still streaming; no session is wedged (a queued turn while none
// is active, or an active turn id naming an ended turn); every session has its
// first message (a fork that failed half-way would leave one empty); and no
// session the user deleted is listed again.
func (p *replay) settled(listed map[string]bool) {
	ids := make([]string, 0, len(p.messages))
	for id := range p.messages {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	for _, id := range ids {
		m := p.messages[id]
		if t, ok := p.turns[m.TurnID]; ok && m.Status == protocol.MessageStreaming && protocol.TurnTerminal(t.Status) {
			p.h.breach(func(r *Report) { r.StreamingEnded++ }, "%s: message %s still streaming in turn %s, which is %s", p.user.name, id, t.ID, t.Status)
		}
	}
	// The lists leave deleted sessions out: their turns count from here (the
	// settle waits for them through the client's state, openInDeleted).
	for _, t := range p.turns {
		if !p.sessions[t.SessionID].Deleted {
			continue
		}
		p.h.count(func(r *Report) {
			r.Turns++
			switch t.Status {
			case protocol.TurnCompleted:
				r.Completed++
			case protocol.TurnFailed:
				r.FailedTurns++
			case protocol.TurnStopped:
				r.Stopped++
			}
		})
	}
	sids := make([]string, 0, len(p.sessions))
	for id := range p.sessions {
		sids = append(sids, id)
	}
	slices.Sort(sids)
	for _, sid := range sids {
		s := p.sessions[sid]
		if s.Deleted {
			continue
		}
		var queued, running []string
		for _, t := range p.turns {
			switch {
			case t.SessionID != sid:
			case t.Status == protocol.TurnQueued:
				queued = append(queued, t.ID)
			case active(t.Status):
				running = append(running, t.ID)
			}
		}
		if len(queued) > 0 && len(running) == 0 {
			p.h.breach(func(r *Report) { r.Wedged++ }, "%s: session %s has queued turns %v and none active (active_turn_id %q)", p.user.name, sid, queued, s.ActiveTurnID)
		} else if t, ok := p.turns[s.ActiveTurnID]; s.ActiveTurnID != "" && (!ok || protocol.TurnTerminal(t.Status)) {
			p.h.breach(func(r *Report) { r.Wedged++ }, "%s: session %s names active turn %s, which is %s", p.user.name, sid, s.ActiveTurnID, t.Status)
		}
		empty := true
		for _, m := range p.messages {
			if m.SessionID == sid {
				empty = false
				break
			}
		}
		if empty {
			p.h.breach(func(r *Report) { r.ForkDiffer++ }, "%s: session %s (%q) has no message", p.user.name, sid, s.Title)
		}
	}
	p.user.mu.Lock()
	defer p.user.mu.Unlock()
	for sid := range p.user.deleted {
		if listed[sid] && p.once(sid+" reappeared") {
			p.h.breach(func(r *Report) { r.Reappeared++ }, "%s: session %s was deleted and is listed again", p.user.name, sid)
		}
	}
}
