package lifecycle_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/rtcagent/rtcagent/internal/core"
	"github.com/rtcagent/rtcagent/internal/lifecycle"
	"github.com/rtcagent/rtcagent/internal/protocol"
	"github.com/rtcagent/rtcagent/internal/store"
	"github.com/rtcagent/rtcagent/internal/testkit/testsvc"
)

var (
	ctx    = context.Background()
	caller = core.Caller{UserID: "u", DeviceID: "d"}
)

// write runs fn in a write transaction that must commit.
func write(t *testing.T, st store.Store, fn func(tx store.Tx) error) {
	t.Helper()
	if err := st.Write(ctx, fn); err != nil {
		t.Fatal(err)
	}
}

// code is the protocol error code of err ("" for nil, "?" for another error).
func code(err error) string {
	var pe *protocol.Error
	switch {
	case err == nil:
		return ""
	case errors.As(err, &pe):
		return pe.Code
	}
	return "?"
}

// fixture is a session with a turn in a chosen state, on a fresh SQLite store.
type fixture struct {
	st   store.Store
	sess string
	turn string
	msg  string
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	f := &fixture{st: testsvc.SQLite(t)}
	write(t, f.st, func(tx store.Tx) error {
		res, err := core.SendMessage(tx, caller, &protocol.MessageSendRequest{ClientID: "first", Content: protocol.MessageContent{Text: "hi"}})
		if err == nil {
			f.sess, f.turn, f.msg = res.SessionID, res.TurnID, res.MessageID
		}
		return err
	})
	return f
}

// run runs fn in a write transaction and returns its error (the transaction rolls
// back on error).
func (f *fixture) run(fn func(tx store.Tx) error) error { return f.st.Write(ctx, fn) }

func (f *fixture) session(t *testing.T) *protocol.Session {
	t.Helper()
	var s *protocol.Session
	if err := f.st.Read(ctx, func(tx store.Tx) error { var err error; s, err = tx.SessionGet(f.sess); return err }); err != nil {
		t.Fatal(err)
	}
	return s
}

func (f *fixture) getTurn(t *testing.T, id string) *protocol.Turn {
	t.Helper()
	var tr *protocol.Turn
	if err := f.st.Read(ctx, func(tx store.Tx) error { var err error; tr, err = tx.TurnGet(id); return err }); err != nil {
		t.Fatal(err)
	}
	return tr
}

// setTurn moves the fixture's turn to status (running and waiting make it the
// session's active turn), as a worker would: its start item is gone.
func (f *fixture) setTurn(t *testing.T, status string) {
	t.Helper()
	write(t, f.st, func(tx store.Tx) error {
		if status != protocol.TurnQueued {
			it, err := tx.InboxNext(f.sess)
			if err != nil {
				return err
			}
			if err := tx.InboxDelete(*it); err != nil {
				return err
			}
		}
		tr, err := tx.TurnGet(f.turn)
		if err != nil {
			return err
		}
		prev := tr.Status
		tr.Status = status
		if err := core.EmitTurn(tx, tr, prev); err != nil {
			return err
		}
		s, err := tx.SessionGet(f.sess)
		if err != nil {
			return err
		}
		if status == protocol.TurnRunning || status == protocol.TurnWaiting {
			s.ActiveTurnID = tr.ID
		} else {
			s.ActiveTurnID = ""
		}
		return core.EmitSession(tx, s, protocol.UpdSessionUpdated)
	})
}

// setSession changes the fixture's session.
func (f *fixture) setSession(t *testing.T, change func(*protocol.Session)) {
	t.Helper()
	write(t, f.st, func(tx store.Tx) error {
		s, err := tx.SessionGet(f.sess)
		if err != nil {
			return err
		}
		change(s)
		return core.EmitSession(tx, s, protocol.UpdSessionUpdated)
	})
}

// addRTC adds an RTC of the fixture's turn in step 1 with the given status.
func (f *fixture) addRTC(t *testing.T, seq int, status string) string {
	t.Helper()
	r := &protocol.RTC{ID: core.NewID(), SessionID: f.sess, TurnID: f.turn, UserID: caller.UserID, ToolCallID: core.NewID(),
		Seq: seq, Step: 1, ToolName: "read", Status: status, TimeoutMS: 60_000}
	write(t, f.st, func(tx store.Tx) error {
		if status == protocol.RTCPending {
			return lifecycle.Deliver(tx, r, "")
		}
		return lifecycle.EmitRTC(tx, r, "")
	})
	return r.ID
}

func (f *fixture) rtc(t *testing.T, id string) *protocol.RTC {
	t.Helper()
	var r *protocol.RTC
	if err := f.st.Read(ctx, func(tx store.Tx) error { var err error; r, err = tx.RTCGet(id); return err }); err != nil {
		t.Fatal(err)
	}
	return r
}

func (f *fixture) inbox(t *testing.T) *store.InboxItem {
	t.Helper()
	var it *store.InboxItem
	err := f.st.Read(ctx, func(tx store.Tx) error { var err error; it, err = tx.InboxNext(f.sess); return err })
	if errors.Is(err, store.ErrNotFound) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	return it
}

func TestSendMessageRefusals(t *testing.T) {
	cases := []struct {
		name   string
		setup  func(t *testing.T, f *fixture)
		caller core.Caller
		want   string
	}{
		{"closed session", func(t *testing.T, f *fixture) {
			f.setSession(t, func(s *protocol.Session) { s.Status = protocol.SessionClosed })
		}, caller, protocol.CodeConflict},
		{"deleted session", func(t *testing.T, f *fixture) { f.setSession(t, func(s *protocol.Session) { s.Deleted = true }) }, caller, protocol.CodeNotFound},
		{"another device", func(*testing.T, *fixture) {}, core.Caller{UserID: caller.UserID, DeviceID: "other"}, protocol.CodeForbidden},
		{"another user", func(*testing.T, *fixture) {}, core.Caller{UserID: "v", DeviceID: caller.DeviceID}, protocol.CodeNotFound},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := newFixture(t)
			c.setup(t, f)
			err := f.run(func(tx store.Tx) error {
				_, err := core.SendMessage(tx, c.caller, &protocol.MessageSendRequest{ClientID: "second", SessionID: f.sess, Content: protocol.MessageContent{Text: "again"}})
				return err
			})
			if code(err) != c.want {
				t.Fatalf("send: %v, want %s", err, c.want)
			}
		})
	}
}

func TestSendMessageTransitions(t *testing.T) {
	f := newFixture(t)
	s := f.session(t)
	if s.Status != protocol.SessionOpen || s.WorkMode != protocol.ModeEdit || s.Title != "hi" || s.ActiveTurnID != "" {
		t.Fatalf("new session %+v", s)
	}
	if tr := f.getTurn(t, f.turn); tr.Status != protocol.TurnQueued || tr.UserMessageID != f.msg {
		t.Fatalf("new turn %+v", tr)
	}
	if it := f.inbox(t); it == nil || it.Kind != core.KindTurnStart || it.TurnID != f.turn {
		t.Fatalf("inbox %+v: want the turn's start", it)
	}
	// A repeated client_id returns the first result and writes nothing.
	var again *protocol.MessageSendResult
	write(t, f.st, func(tx store.Tx) error {
		var err error
		again, err = core.SendMessage(tx, caller, &protocol.MessageSendRequest{ClientID: "first", SessionID: f.sess, WorkMode: protocol.ModePlan, Content: protocol.MessageContent{Text: "x"}})
		return err
	})
	if again.TurnID != f.turn || f.session(t).WorkMode != protocol.ModeEdit {
		t.Fatalf("repeated send: %+v, work mode %s", again, f.session(t).WorkMode)
	}
	// A send while a turn runs queues behind it and may change the work mode.
	f.setTurn(t, protocol.TurnRunning)
	write(t, f.st, func(tx store.Tx) error {
		var err error
		again, err = core.SendMessage(tx, caller, &protocol.MessageSendRequest{ClientID: "second", SessionID: f.sess, WorkMode: protocol.ModePlan, Content: protocol.MessageContent{Text: "x"}})
		return err
	})
	if s := f.session(t); s.WorkMode != protocol.ModePlan || s.ActiveTurnID != f.turn {
		t.Fatalf("session after a send during a turn: %+v", s)
	}
	if tr := f.getTurn(t, again.TurnID); tr.Status != protocol.TurnQueued || tr.Seq != 2 {
		t.Fatalf("second turn %+v", tr)
	}
}

func TestStopTurn(t *testing.T) {
	cases := []struct {
		name       string
		status     string // the fixture turn's status before the stop ("" = no turn to stop)
		wantCode   string
		wantStatus string
	}{
		{"queued", protocol.TurnQueued, "", protocol.TurnStopped},
		{"running", protocol.TurnRunning, "", protocol.TurnStopped},
		{"waiting", protocol.TurnWaiting, "", protocol.TurnStopped},
		{"nothing to stop", protocol.TurnCompleted, protocol.CodeConflict, protocol.TurnCompleted},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := newFixture(t)
			f.setTurn(t, c.status)
			open := f.addRTC(t, 1, protocol.RTCPending)
			err := f.run(func(tx store.Tx) error { _, _, err := lifecycle.StopTurn(tx, caller, f.sess, nil); return err })
			if code(err) != c.wantCode {
				t.Fatalf("stop: %v, want %q", err, c.wantCode)
			}
			if tr := f.getTurn(t, f.turn); tr.Status != c.wantStatus {
				t.Fatalf("turn %s, want %s", tr.Status, c.wantStatus)
			}
			if c.wantCode != "" {
				return
			}
			if s := f.session(t); s.ActiveTurnID != "" {
				t.Fatalf("session still has active turn %q", s.ActiveTurnID)
			}
			if r := f.rtc(t, open); r.Status != protocol.RTCFailed {
				t.Fatalf("open rtc %s after the stop, want failed", r.Status)
			}
		})
	}
}

// partials is a fixed partial buffer.
type partials map[string]string

func (p partials) Partial(id string) (string, int64, bool) { s, ok := p[id]; return s, 1, ok }

// Ending a turn closes its streaming message with the text it showed, queues the
// next turn and adds the usage to the session.
func TestEndTurnClosesAndQueues(t *testing.T) {
	f := newFixture(t)
	f.setTurn(t, protocol.TurnRunning)
	streaming := &protocol.Message{ID: core.NewID(), SessionID: f.sess, TurnID: f.turn, UserID: caller.UserID, Seq: 2,
		Role: protocol.RoleAssistant, Status: protocol.MessageStreaming}
	var next *protocol.MessageSendResult
	write(t, f.st, func(tx store.Tx) error {
		if err := core.EmitMessage(tx, streaming, "", ""); err != nil {
			return err
		}
		var err error
		next, err = core.SendMessage(tx, caller, &protocol.MessageSendRequest{ClientID: "next", SessionID: f.sess, Content: protocol.MessageContent{Text: "next"}})
		if err != nil {
			return err
		}
		for { // the start the send queued: the worker drops it while a turn is active
			it, err := tx.InboxNext(f.sess)
			if errors.Is(err, store.ErrNotFound) {
				break
			}
			if err != nil {
				return err
			}
			if err := tx.InboxDelete(*it); err != nil {
				return err
			}
		}
		return nil
	})
	write(t, f.st, func(tx store.Tx) error {
		tr, err := tx.TurnGet(f.turn)
		if err != nil {
			return err
		}
		tr.Usage = protocol.Usage{InputTokens: 7, OutputTokens: 3}
		_, err = lifecycle.EndTurn(tx, tr, protocol.TurnFailed, &protocol.TurnError{Category: "internal"}, "cancelled", partials{streaming.ID: "so far"})
		return err
	})
	var m *protocol.Message
	if err := f.st.Read(ctx, func(tx store.Tx) error { var err error; m, err = tx.MessageGet(streaming.ID); return err }); err != nil {
		t.Fatal(err)
	}
	if m.Status != protocol.MessageInterrupted || m.Text != "so far" {
		t.Fatalf("streaming message after the turn ended: %s %q", m.Status, m.Text)
	}
	if s := f.session(t); s.ActiveTurnID != "" || s.Usage.InputTokens != 7 || s.Usage.OutputTokens != 3 {
		t.Fatalf("session after the turn ended: %+v", s)
	}
	if it := f.inbox(t); it == nil || it.TurnID != next.TurnID || it.Kind != core.KindTurnStart {
		t.Fatalf("inbox %+v: want the next turn's start", it)
	}
	// Ending it again is a conflict (compare-and-set on the status).
	err := f.run(func(tx store.Tx) error {
		tr := f.getTurn(t, f.turn)
		tr.Status = protocol.TurnRunning
		_, err := lifecycle.EndTurn(tx, tr, protocol.TurnStopped, nil, "", nil)
		return err
	})
	if !errors.Is(err, store.ErrConflict) {
		t.Fatalf("ending an ended turn: %v, want a conflict", err)
	}
}

func TestRetryTurn(t *testing.T) {
	cases := []struct {
		name   string
		status string
		setup  func(t *testing.T, f *fixture)
		turnID func(f *fixture) string
		want   string
	}{
		{"failed", protocol.TurnFailed, nil, nil, ""},
		{"stopped", protocol.TurnStopped, nil, nil, ""},
		{"completed", protocol.TurnCompleted, nil, nil, protocol.CodeConflict},
		{"running", protocol.TurnRunning, nil, nil, protocol.CodeConflict},
		{"closed session", protocol.TurnFailed, func(t *testing.T, f *fixture) {
			f.setSession(t, func(s *protocol.Session) { s.Status = protocol.SessionClosed })
		}, nil, protocol.CodeConflict},
		{"not the latest", protocol.TurnFailed, func(t *testing.T, f *fixture) {
			write(t, f.st, func(tx store.Tx) error {
				_, err := core.SendMessage(tx, caller, &protocol.MessageSendRequest{ClientID: "later", SessionID: f.sess, Content: protocol.MessageContent{Text: "later"}})
				return err
			})
		}, nil, protocol.CodeConflict},
		{"unknown turn", protocol.TurnFailed, nil, func(*fixture) string { return "nope" }, protocol.CodeNotFound},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := newFixture(t)
			f.setTurn(t, c.status)
			if c.setup != nil {
				c.setup(t, f)
			}
			id := f.turn
			if c.turnID != nil {
				id = c.turnID(f)
			}
			retry := func() (*protocol.TurnStartResult, error) {
				var res *protocol.TurnStartResult
				err := f.run(func(tx store.Tx) error {
					var err error
					res, err = core.RetryTurn(tx, caller, &protocol.TurnRetryRequest{SessionID: f.sess, TurnID: id, ClientID: "r1"})
					return err
				})
				return res, err
			}
			res, err := retry()
			if code(err) != c.want {
				t.Fatalf("retry: %v, want %q", err, c.want)
			}
			if c.want != "" {
				return
			}
			tr := f.getTurn(t, res.TurnID)
			if tr.Status != protocol.TurnQueued || tr.RetryOf != f.turn || tr.UserMessageID != f.msg {
				t.Fatalf("retry turn %+v", tr)
			}
			if again, err := retry(); err != nil || again.TurnID != res.TurnID {
				t.Fatalf("repeated retry: %+v %v, want the first", again, err)
			}
		})
	}
}

func TestCompactSession(t *testing.T) {
	f := newFixture(t)
	compact := func() (*protocol.TurnStartResult, error) {
		var res *protocol.TurnStartResult
		err := f.run(func(tx store.Tx) error {
			var err error
			res, err = core.CompactSession(tx, caller, &protocol.SessionCompactRequest{SessionID: f.sess})
			return err
		})
		return res, err
	}
	res, err := compact()
	if err != nil {
		t.Fatal(err)
	}
	if tr := f.getTurn(t, res.TurnID); tr.Kind != protocol.TurnKindCompact || tr.Status != protocol.TurnQueued || tr.Seq != 2 {
		t.Fatalf("compact turn %+v", tr)
	}
	f.setSession(t, func(s *protocol.Session) { s.Status = protocol.SessionClosed })
	if _, err := compact(); code(err) != protocol.CodeConflict {
		t.Fatalf("compact a closed session: %v, want conflict", err)
	}
}

func TestRTCStatusTransitions(t *testing.T) {
	cases := []struct {
		from, to string
		want     string // error code; "" = allowed
	}{
		{protocol.RTCQueued, protocol.RTCSent, protocol.CodeConflict},
		{protocol.RTCPending, protocol.RTCSent, ""},
		{protocol.RTCPending, protocol.RTCExecuting, ""},
		{protocol.RTCSent, protocol.RTCExecuting, ""},
		{protocol.RTCExecuting, protocol.RTCSent, protocol.CodeConflict},
		{protocol.RTCSent, protocol.RTCSent, ""}, // a repeated request
		{protocol.RTCPending, protocol.RTCRejected, ""},
		{protocol.RTCCompleted, protocol.RTCExecuting, protocol.CodeConflict},
		{protocol.RTCFailed, protocol.RTCRejected, protocol.CodeConflict},
	}
	for _, c := range cases {
		t.Run(c.from+"→"+c.to, func(t *testing.T) {
			f := newFixture(t)
			f.setTurn(t, protocol.TurnWaiting)
			id := f.addRTC(t, 1, c.from)
			err := f.run(func(tx store.Tx) error {
				_, err := lifecycle.UpdateRTCStatus(tx, caller, &protocol.RTCUpdateStatusRequest{RTCID: id, Status: c.to, ClientID: "x"})
				return err
			})
			if code(err) != c.want {
				t.Fatalf("update: %v, want %q", err, c.want)
			}
			got := f.rtc(t, id).Status
			if c.want == "" && got != c.to || c.want != "" && got != c.from {
				t.Fatalf("rtc %s after the update", got)
			}
			if c.to == protocol.RTCRejected && c.want == "" {
				if it := f.inbox(t); it == nil || it.Kind != core.KindTurnResume {
					t.Fatalf("inbox %+v after the last call ended: want the turn's resumption", it)
				}
			}
		})
	}
	t.Run("another device", func(t *testing.T) {
		f := newFixture(t)
		id := f.addRTC(t, 1, protocol.RTCPending)
		err := f.run(func(tx store.Tx) error {
			_, err := lifecycle.UpdateRTCStatus(tx, core.Caller{UserID: caller.UserID, DeviceID: "other"}, &protocol.RTCUpdateStatusRequest{RTCID: id, Status: protocol.RTCSent})
			return err
		})
		if code(err) != protocol.CodeForbidden {
			t.Fatalf("update from another device: %v", err)
		}
	})
}

func TestSubmitResult(t *testing.T) {
	f := newFixture(t)
	f.setTurn(t, protocol.TurnWaiting)
	first := f.addRTC(t, 1, protocol.RTCPending)
	second := f.addRTC(t, 2, protocol.RTCQueued)
	submit := func(id string, ok bool, errText string) (*protocol.RTC, error) {
		var r *protocol.RTC
		err := f.run(func(tx store.Tx) error {
			var err error
			r, err = lifecycle.SubmitResult(tx, caller, &protocol.RTCSubmitResultRequest{RTCID: id, ClientID: "s", OK: ok, Output: []byte(`"out"`), Error: errText})
			return err
		})
		return r, err
	}
	if _, err := submit(second, true, ""); code(err) != protocol.CodeConflict {
		t.Fatalf("result for a queued call: %v, want conflict", err)
	}
	if r, err := submit(first, true, ""); err != nil || r.Status != protocol.RTCCompleted {
		t.Fatalf("result: %+v %v", r, err)
	}
	if r := f.rtc(t, second); r.Status != protocol.RTCPending || r.DeadlineAt == nil {
		t.Fatalf("next call after the first ended: %+v, want delivered", r)
	}
	if r, err := submit(first, false, "late"); err != nil || r.Status != protocol.RTCCompleted {
		t.Fatalf("replayed result: %+v %v, want the stored outcome", r, err)
	}
	if r, err := submit(second, false, ""); err != nil || r.Status != protocol.RTCFailed || r.Error == "" {
		t.Fatalf("failure without a message: %+v %v", r, err)
	}
	if it := f.inbox(t); it == nil || it.Kind != core.KindTurnResume {
		t.Fatalf("inbox %+v after the step's calls ended: want the resumption", it)
	}
}

func TestExpireRTC(t *testing.T) {
	f := newFixture(t)
	f.setTurn(t, protocol.TurnWaiting)
	id := f.addRTC(t, 1, protocol.RTCPending)
	if err := f.run(func(tx store.Tx) error { return lifecycle.ExpireRTC(tx, id) }); err != nil {
		t.Fatal(err)
	}
	if r := f.rtc(t, id); r.Status != protocol.RTCPending {
		t.Fatalf("rtc %s before its deadline, want pending", r.Status)
	}
	write(t, f.st, func(tx store.Tx) error {
		r, err := tx.RTCGet(id)
		if err != nil {
			return err
		}
		past := tx.Now().Add(-time.Second)
		r.DeadlineAt = &past
		return lifecycle.EmitRTC(tx, r, protocol.RTCPending)
	})
	if err := f.run(func(tx store.Tx) error { return lifecycle.ExpireRTC(tx, id) }); err != nil {
		t.Fatal(err)
	}
	if r := f.rtc(t, id); r.Status != protocol.RTCTimeout {
		t.Fatalf("rtc %s after its deadline, want timeout", r.Status)
	}
	if it := f.inbox(t); it == nil || it.Kind != core.KindTurnResume {
		t.Fatalf("inbox %+v after the timeout: want the resumption", it)
	}
}
