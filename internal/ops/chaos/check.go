package chaos

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/rtcagent/rtcagent/internal/protocol"
	"github.com/rtcagent/rtcagent/internal/testkit/simclient"
)

// check waits for the turns to settle and the clients to catch up, then counts
// every broken invariant into the report.
func (h *harness) check(ctx context.Context) error {
	deadline := time.Now().Add(h.o.Settle)
	var open []string
	for {
		var err error
		if open, err = h.openTurns(ctx); err != nil {
			return err
		}
		if len(open) == 0 || time.Now().After(deadline) {
			break
		}
		time.Sleep(250 * time.Millisecond)
	}
	for _, t := range open {
		h.breach(func(r *Report) { r.Stuck++ }, "stuck turn %s", t)
	}
	h.mu.Lock()
	h.checking = true
	h.mu.Unlock()
	h.extra.Wait() // what the users started after an answer (user.later)
	for _, u := range h.users {
		if err := h.checkUser(ctx, u, deadline); err != nil {
			return fmt.Errorf("%s: %w", u.name, err)
		}
	}
	return nil
}

// openTurns lists the server's turns of every user and returns those not
// terminal; it also counts the turns by outcome.
func (h *harness) openTurns(ctx context.Context) ([]string, error) {
	var open []string
	var total, completed, failed, stopped int
	for _, u := range h.users {
		sessions, err := u.list(ctx, protocol.MethodSessionList, "sessions", "")
		if err != nil {
			return nil, err
		}
		for _, s := range sessions {
			turns, err := u.list(ctx, protocol.MethodTurnList, "turns", idOf(s))
			if err != nil {
				return nil, err
			}
			for _, raw := range turns {
				var t protocol.Turn
				if err := json.Unmarshal(raw, &t); err != nil {
					return nil, err
				}
				total++
				switch t.Status {
				case protocol.TurnCompleted:
					completed++
				case protocol.TurnFailed:
					failed++
				case protocol.TurnStopped:
					stopped++
				default:
					open = append(open, fmt.Sprintf("%s of %s (%s, step %d)", t.ID, u.name, t.Status, t.Step))
				}
			}
		}
	}
	h.count(func(r *Report) { r.Turns, r.Completed, r.FailedTurns, r.Stopped = total, completed, failed, stopped })
	for _, u := range h.users {
		open = append(open, u.openInDeleted()...)
	}
	return open, nil
}

// openInDeleted lists the turns of deleted sessions that the user's client
// still holds as not ended: the lists leave those sessions out, the settle
// waits for them all the same (and the history replay counts them).
func (u *user) openInDeleted() []string {
	gone := map[string]bool{}
	for id, e := range u.profile.Entities(simclient.KindSession) {
		var s protocol.Session
		if json.Unmarshal(e.Data, &s) == nil && s.Deleted {
			gone[id] = true
		}
	}
	var open []string
	for _, e := range u.profile.Entities(simclient.KindTurn) {
		var t protocol.Turn
		if json.Unmarshal(e.Data, &t) == nil && gone[t.SessionID] && !protocol.TurnTerminal(t.Status) {
			open = append(open, fmt.Sprintf("%s of %s in a deleted session (%s, step %d)", t.ID, u.name, t.Status, t.Step))
		}
	}
	return open
}

func (h *harness) checkUser(ctx context.Context, u *user, deadline time.Time) error {
	var top protocol.UpdateListResult
	if err := u.call(ctx, protocol.MethodUpdateList, protocol.UpdateListRequest{Limit: 1}, &top); err != nil {
		return err
	}
	wait := time.Until(deadline)
	if wait < 20*time.Second {
		wait = 20 * time.Second
	}
	wctx, cancel := context.WithTimeout(ctx, wait)
	err := u.profile.WaitOffset(wctx, top.Top)
	cancel()
	if err != nil {
		h.logf("%s: client behind the server: %v", u.name, err)
	}
	rp := newReplay(h, u)
	if err := h.checkHistory(ctx, u, top.Top, rp); err != nil {
		return err
	}
	sessions, err := u.list(ctx, protocol.MethodSessionList, "sessions", "")
	if err != nil {
		return err
	}
	listed := map[string]bool{}
	for _, s := range sessions {
		listed[idOf(s)] = true
	}
	rp.settled(listed)
	for _, kind := range []string{simclient.KindSession, simclient.KindTurn, simclient.KindMessage, simclient.KindRTC} {
		if err := h.checkEntities(ctx, u, kind); err != nil {
			return err
		}
	}
	h.checkExecutions(ctx, u)
	u.mu.Lock()
	clients := append([]*simclient.Client(nil), u.clients...)
	u.mu.Unlock()
	for _, c := range clients {
		if err := c.Err(); err != nil {
			for _, line := range strings.Split(err.Error(), "\n") {
				h.breach(func(r *Report) { r.ClientErrors++ }, "%s: %s", u.name, line)
			}
		}
	}
	for _, err := range u.profile.Err() {
		h.breach(func(r *Report) { r.ClientErrors++ }, "%s: %v", u.name, err)
	}
	return nil
}

// checkHistory reads the server's history 1..top, compares every offset with
// what the client applied, and replays it into rp.
func (h *harness) checkHistory(ctx context.Context, u *user, top int64, rp *replay) error {
	var since int64
	for since < top {
		var page protocol.UpdateListResult
		if err := u.call(ctx, protocol.MethodUpdateList, protocol.UpdateListRequest{SinceOffset: since, Limit: 200}, &page); err != nil {
			return err
		}
		if page.Reset || len(page.Updates) == 0 {
			h.breach(func(r *Report) { r.Lost += int(top - since) }, "%s: history after %d unreadable (reset %v)", u.name, since, page.Reset)
			return nil
		}
		for _, up := range page.Updates {
			switch {
			case up.Offset <= since:
				h.breach(func(r *Report) { r.DupOffsets++ }, "%s: history repeats offset %d", u.name, up.Offset)
				continue
			case up.Offset > since+1:
				h.breach(func(r *Report) { r.Lost += int(up.Offset - since - 1) }, "%s: history lacks offsets %d..%d", u.name, since+1, up.Offset-1)
			}
			since = up.Offset
			rp.apply(up)
			h.count(func(r *Report) { r.Updates++ })
			got := u.profile.Applied(up.Offset)
			switch {
			case got == nil:
				h.breach(func(r *Report) { r.Lost++ }, "%s: client never applied offset %d", u.name, up.Offset)
			case !bytes.Equal(got, simclient.CanonicalUpdate(up)):
				h.breach(func(r *Report) { r.DupOffsets++ }, "%s: offset %d applied as %.120s, history has %.120s", u.name, up.Offset, got, simclient.CanonicalUpdate(up))
			}
		}
	}
	return nil
}

// checkEntities compares the client's folded entities of one kind with the
// server's lists.
func (h *harness) checkEntities(ctx context.Context, u *user, kind string) error {
	server := map[string][]byte{}
	sessions, err := u.list(ctx, protocol.MethodSessionList, "sessions", "")
	if err != nil {
		return err
	}
	if kind == simclient.KindSession {
		for _, s := range sessions {
			server[idOf(s)] = canon(s)
		}
	} else {
		l := map[string][2]string{
			simclient.KindTurn:    {protocol.MethodTurnList, "turns"},
			simclient.KindMessage: {protocol.MethodMessageList, "messages"},
			simclient.KindRTC:     {protocol.MethodRTCList, "rtcs"},
		}[kind]
		method, key := l[0], l[1]
		for _, s := range sessions {
			items, err := u.list(ctx, method, key, idOf(s))
			if err != nil {
				return err
			}
			for _, it := range items {
				server[idOf(it)] = canon(it)
			}
		}
	}
	// The server lists nothing of a deleted session; the client keeps it,
	// marked deleted, with what it held.
	client := u.profile.Entities(kind)
	gone := map[string]bool{}
	for id, e := range u.profile.Entities(simclient.KindSession) {
		var s struct {
			Deleted bool `json:"deleted"`
		}
		if json.Unmarshal(e.Data, &s) == nil && s.Deleted {
			gone[id] = true
		}
	}
	for id, e := range client {
		var v struct {
			SessionID string `json:"session_id"`
		}
		_ = json.Unmarshal(e.Data, &v)
		if (kind == simclient.KindSession && gone[id]) || gone[v.SessionID] {
			delete(client, id)
		}
	}
	for id, want := range server {
		got, ok := client[id]
		switch {
		case !ok:
			h.breach(func(r *Report) { r.StateDiffs++ }, "%s: %s %s unknown to the client", u.name, kind, id)
		case !bytes.Equal(canon(got.Data), want):
			h.breach(func(r *Report) { r.StateDiffs++ }, "%s: %s %s differs: %s", u.name, kind, id, diffKeys(canon(got.Data), want))
		}
	}
	for id := range client {
		if _, ok := server[id]; !ok {
			h.breach(func(r *Report) { r.StateDiffs++ }, "%s: client holds %s %s the server does not list", u.name, kind, id)
		}
	}
	return nil
}

// checkExecutions counts RTCs run or delivered twice and submission answers
// unlike the stored RTC.
func (h *harness) checkExecutions(ctx context.Context, u *user) {
	rtcs := u.profile.Entities(simclient.KindRTC)
	stored := func(id string) (protocol.RTC, bool) {
		var r protocol.RTC
		e, ok := rtcs[id]
		return r, ok && json.Unmarshal(e.Data, &r) == nil
	}
	u.mu.Lock()
	defer u.mu.Unlock()
	for id, n := range u.runs {
		if n > 1 {
			h.breach(func(r *Report) { r.ExecTwice++ }, "%s: rtc %s executed %d times", u.name, id, n)
		}
	}
	for id, n := range u.profile.Deliveries() {
		if n > 1 {
			h.breach(func(r *Report) { r.DeliverTwice++ }, "%s: rtc %s delivered as pending %d times", u.name, id, n)
		}
	}
	answers := map[string][]protocol.RTC{}
	for id, a := range u.answers {
		answers[id] = append(answers[id], a...)
	}
	for id, e := range u.profile.Journal() {
		if e.Gone {
			r, _ := stored(id)
			if !u.deleted[r.SessionID] {
				h.breach(func(r *Report) { r.ClientErrors++ }, "%s: rtc %s answered not found, its session %q was not deleted", u.name, id, r.SessionID)
			}
			continue
		}
		if e.Acked {
			answers[id] = append(answers[id], e.Answer)
		}
	}
	for _, r := range u.goneRTCs {
		if !u.deleted[r.SessionID] {
			h.breach(func(rep *Report) { rep.ClientErrors++ }, "%s: rtc %s answered not found, its session %q was not deleted", u.name, r.ID, r.SessionID)
		}
	}
	ids := make([]string, 0, len(answers))
	for id := range answers {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for _, id := range ids {
		final, ok := stored(id)
		for _, a := range answers[id] {
			if !ok || a.Status != final.Status || a.Error != final.Error || !bytes.Equal(canon(a.Output), canon(final.Output)) {
				h.breach(func(r *Report) { r.DupDiffer++ }, "%s: rtc %s answered %s %s %q, stored %s %s %q", u.name, id,
					a.Status, a.Output, a.Error, final.Status, final.Output, final.Error)
			}
		}
	}
}

// list reads every page of a list method and returns its items.
func (u *user) list(ctx context.Context, method, key, session string) ([]json.RawMessage, error) {
	var out []json.RawMessage
	cursor := ""
	for {
		var page map[string]json.RawMessage
		if err := u.call(ctx, method, protocol.ListRequest{SessionID: session, Cursor: cursor, Limit: 200}, &page); err != nil {
			return nil, fmt.Errorf("%s: %w", method, err)
		}
		var items []json.RawMessage
		if err := json.Unmarshal(page[key], &items); err != nil {
			return nil, fmt.Errorf("%s: %s: %w", method, key, err)
		}
		out = append(out, items...)
		cursor = ""
		if raw, ok := page["next_cursor"]; ok {
			_ = json.Unmarshal(raw, &cursor)
		}
		if cursor == "" {
			return out, nil
		}
	}
}

func idOf(raw json.RawMessage) string {
	var v struct {
		ID string `json:"id"`
	}
	_ = json.Unmarshal(raw, &v)
	return v.ID
}

func canon(b []byte) []byte {
	if len(b) == 0 {
		return nil
	}
	var v any
	if json.Unmarshal(b, &v) != nil {
		return b
	}
	out, _ := json.Marshal(v)
	return out
}

// diffKeys names the top-level fields two JSON objects disagree on.
func diffKeys(a, b []byte) string {
	var ma, mb map[string]json.RawMessage
	_ = json.Unmarshal(a, &ma)
	_ = json.Unmarshal(b, &mb)
	var keys []string
	for k, v := range ma {
		if !bytes.Equal(canon(v), canon(mb[k])) {
			keys = append(keys, fmt.Sprintf("%s client %.80s server %.80s", k, v, mb[k]))
		}
	}
	for k, v := range mb {
		if _, ok := ma[k]; !ok {
			keys = append(keys, fmt.Sprintf("%s client - server %.80s", k, v))
		}
	}
	sort.Strings(keys)
	return strings.Join(keys, "; ")
}
