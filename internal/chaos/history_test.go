package chaos

import (
	"encoding/json"
	"testing"

	"github.com/rtcagent/rtcagent/internal/protocol"
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
		}
		data, _ := json.Marshal(e)
		rp.apply(protocol.Update{Offset: int64(i + 1), Type: typ, Data: data})
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
