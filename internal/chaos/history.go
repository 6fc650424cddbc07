package chaos

import (
	"encoding/json"
	"slices"

	"github.com/rtcagent/rtcagent/internal/protocol"
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
	reported map[string]bool  // session id + invariant, so each counts once
}

func newReplay(h *harness, u *user) *replay {
	return &replay{h: h, user: u, sessions: map[string]protocol.Session{}, turns: map[string]protocol.Turn{},
		messages: map[string]protocol.Message{}, deleted: map[string]int64{}, reported: map[string]bool{}}
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
// never has two turns running or waiting at once.
func (p *replay) apply(up protocol.Update) {
	switch up.Type {
	case protocol.UpdSessionCreated, protocol.UpdSessionUpdated:
		var s protocol.Session
		if json.Unmarshal(up.Data, &s) != nil {
			return
		}
		p.sessions[s.ID] = s
		at, was := p.deleted[s.ID]
		switch {
		case s.Deleted && !was:
			p.deleted[s.ID] = up.Offset
		case !s.Deleted && was && p.once(s.ID+" reappeared"):
			p.h.breach(func(r *Report) { r.Reappeared++ }, "%s: session %s deleted at offset %d is back at offset %d", p.user.name, s.ID, at, up.Offset)
		}
	case protocol.UpdTurnCreated, protocol.UpdTurnUpdated:
		var t protocol.Turn
		if json.Unmarshal(up.Data, &t) != nil {
			return
		}
		p.turns[t.ID] = t
		if !active(t.Status) {
			return
		}
		for _, o := range p.turns {
			if o.ID != t.ID && o.SessionID == t.SessionID && active(o.Status) && p.once(t.SessionID+" two active") {
				p.h.breach(func(r *Report) { r.TwoActive++ }, "%s: session %s has turns %s (%s) and %s (%s) active at offset %d",
					p.user.name, t.SessionID, o.ID, o.Status, t.ID, t.Status, up.Offset)
			}
		}
	case protocol.UpdMessageCreated, protocol.UpdMessageUpdated:
		var m protocol.Message
		if json.Unmarshal(up.Data, &m) == nil {
			p.messages[m.ID] = m
		}
	}
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
