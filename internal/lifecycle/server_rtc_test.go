package lifecycle_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/rtcagent/rtcagent/internal/core"
	"github.com/rtcagent/rtcagent/internal/lifecycle"
	"github.com/rtcagent/rtcagent/internal/protocol"
	"github.com/rtcagent/rtcagent/internal/store"
	"github.com/rtcagent/rtcagent/internal/tools"
)

// A server call (MCP tool) needing confirmation is delivered without work for
// the worker; the browser cannot run it or submit its result; its approval
// queues the execution in the same transaction, once; the server's result ends
// it like a browser's and resumes the turn.
func TestServerRTC(t *testing.T) {
	f := newFixture(t)
	f.setTurn(t, protocol.TurnWaiting)
	r := &protocol.RTC{ID: core.NewID(), SessionID: f.sess, TurnID: f.turn, UserID: caller.UserID, ToolCallID: "c1",
		Seq: 1, Step: 1, ToolName: "files__write", Status: protocol.RTCQueued, TimeoutMS: 60_000,
		Executor: protocol.RTCExecutorServer, NeedsConfirmation: true}
	write(t, f.st, func(tx store.Tx) error { return lifecycle.Deliver(tx, r, "") })
	if it := f.inbox(t); it != nil {
		t.Fatalf("work queued before the approval: %+v", it)
	}
	err := f.run(func(tx store.Tx) error {
		_, err := lifecycle.UpdateRTCStatus(tx, caller, &protocol.RTCUpdateStatusRequest{RTCID: r.ID, Status: protocol.RTCExecuting, ClientID: "x"})
		return err
	})
	if code(err) != protocol.CodeConflict {
		t.Fatalf("browser executing: %v", err)
	}
	err = f.run(func(tx store.Tx) error {
		_, err := lifecycle.SubmitResult(tx, caller, &protocol.RTCSubmitResultRequest{RTCID: r.ID, ClientID: "x", OK: true})
		return err
	})
	if code(err) != protocol.CodeConflict {
		t.Fatalf("browser result: %v", err)
	}
	for i := 0; i < 2; i++ {
		write(t, f.st, func(tx store.Tx) error {
			_, err := lifecycle.ApproveRTC(tx, caller, &protocol.RTCApproveRequest{RTCID: r.ID, ClientID: "a"})
			return err
		})
	}
	got := f.rtc(t, r.ID)
	if got.Status != protocol.RTCSent || !got.Approved() {
		t.Fatalf("after approval: %s approved=%v", got.Status, got.Approved())
	}
	it := f.inbox(t)
	if it == nil || it.Kind != core.KindRTCExecute {
		t.Fatalf("inbox after approval: %+v", it)
	}
	write(t, f.st, func(tx store.Tx) error {
		if err := tx.InboxDelete(*it); err != nil {
			return err
		}
		if more, err := tx.InboxNext(f.sess); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("a repeated approval queued the call twice: %+v %v", more, err)
		}
		r := *got // a write's function may run more than once: each run starts from the call as read
		if started, err := lifecycle.StartServerRTC(tx, &r); err != nil || !started {
			return fmt.Errorf("start: %v %v", started, err)
		}
		_, err := lifecycle.EndServerRTC(tx, r.ID, tools.ServerResult{OK: true, Output: json.RawMessage(`"done"`)})
		return err
	})
	if got := f.rtc(t, r.ID); got.Status != protocol.RTCCompleted || string(got.Output) != `"done"` {
		t.Fatalf("after the result: %s %s", got.Status, got.Output)
	}
	if it := f.inbox(t); it == nil || it.Kind != core.KindTurnResume {
		t.Fatalf("turn not resumed: %+v", it)
	}
	// A late second result changes nothing.
	write(t, f.st, func(tx store.Tx) error {
		_, err := lifecycle.EndServerRTC(tx, r.ID, tools.ServerResult{Error: "late"})
		return err
	})
	if got := f.rtc(t, r.ID); got.Status != protocol.RTCCompleted {
		t.Fatalf("late result changed it: %s", got.Status)
	}
	// Approving a browser call is refused.
	id := f.addRTC(t, 2, protocol.RTCQueued)
	err = f.run(func(tx store.Tx) error {
		_, err := lifecycle.ApproveRTC(tx, caller, &protocol.RTCApproveRequest{RTCID: id, ClientID: "a"})
		return err
	})
	if code(err) != protocol.CodeInvalidArgument {
		t.Fatalf("approve of a browser call: %v", err)
	}
}

// A question of an executing server call (an MCP elicitation) is an RTC
// of the same step: its answer neither delivers the step's next call nor resumes
// the turn, and the call's end ends a question still open, then delivers the next
// call.
func TestServerRTCElicitation(t *testing.T) {
	f := newFixture(t)
	f.setTurn(t, protocol.TurnWaiting)
	call := &protocol.RTC{ID: core.NewID(), SessionID: f.sess, TurnID: f.turn, UserID: caller.UserID, ToolCallID: "c1",
		Seq: 1, Step: 1, ToolName: "test__ask", Status: protocol.RTCQueued, TimeoutMS: 60_000, Executor: protocol.RTCExecutorServer}
	next := &protocol.RTC{ID: core.NewID(), SessionID: f.sess, TurnID: f.turn, UserID: caller.UserID, ToolCallID: "c2",
		Seq: 2, Step: 1, ToolName: "ls", Status: protocol.RTCQueued, TimeoutMS: 60_000}
	ask := func(n int64) *protocol.RTC {
		return &protocol.RTC{ID: core.NewID(), SessionID: f.sess, TurnID: f.turn, UserID: caller.UserID, ToolCallID: lifecycle.ElicitationCallID(call.ID, n),
			Seq: 2 + int(n), Step: 1, ToolName: tools.Elicitation, Arguments: whichForm(t).JSON(), TimeoutMS: 60_000}
	}
	a1, a2 := ask(1), ask(2)
	write(t, f.st, func(tx store.Tx) error {
		if err := errors.Join(tx.RTCInsert(next), lifecycle.Deliver(tx, call, "")); err != nil {
			return err
		}
		items, err := tx.InboxNext(f.sess)
		if err != nil {
			return err
		}
		if err := tx.InboxDelete(*items); err != nil {
			return err
		}
		if started, err := lifecycle.StartServerRTC(tx, call); err != nil || !started {
			return fmt.Errorf("start: %v %v", started, err)
		}
		return errors.Join(lifecycle.Deliver(tx, a1, ""), lifecycle.Deliver(tx, a2, ""))
	})
	if got := f.rtc(t, a1.ID); got.Status != protocol.RTCPending || got.DeadlineAt == nil {
		t.Fatalf("question %s %v", got.Status, got.DeadlineAt)
	}
	write(t, f.st, func(tx store.Tx) error {
		_, err := lifecycle.SubmitResult(tx, caller, &protocol.RTCSubmitResultRequest{RTCID: a1.ID, ClientID: "x", OK: true, Output: json.RawMessage(`{"action":"decline"}`)})
		return err
	})
	if got := f.rtc(t, next.ID); got.Status != protocol.RTCQueued {
		t.Fatalf("the answer delivered the next call: %s", got.Status)
	}
	if it := f.inbox(t); it != nil {
		t.Fatalf("the answer queued work: %+v", it)
	}
	write(t, f.st, func(tx store.Tx) error {
		_, err := lifecycle.EndServerRTC(tx, call.ID, tools.ServerResult{OK: true, Output: json.RawMessage(`"done"`)})
		return err
	})
	if got := f.rtc(t, a2.ID); got.Status != protocol.RTCFailed {
		t.Fatalf("open question after the call's end: %s", got.Status)
	}
	if got := f.rtc(t, next.ID); got.Status != protocol.RTCPending {
		t.Fatalf("next call after the call's end: %s", got.Status)
	}
}

// A server call's progress is written only while it is executing, as one
// rtc.updated and without touching its audit record or the record's state the
// call carries (so its end reads no record back); once the call ended,
// progress changes nothing.
func TestServerRTCProgress(t *testing.T) {
	f := newFixture(t)
	f.setTurn(t, protocol.TurnWaiting)
	r := &protocol.RTC{ID: core.NewID(), SessionID: f.sess, TurnID: f.turn, UserID: caller.UserID, ToolCallID: "c1",
		Seq: 1, Step: 1, ToolName: "files__copy", Status: protocol.RTCQueued, TimeoutMS: 60_000, Executor: protocol.RTCExecutorServer}
	write(t, f.st, func(tx store.Tx) error { return lifecycle.Deliver(tx, r, "") })
	progress := func(p protocol.RTCProgress) (written bool) {
		write(t, f.st, func(tx store.Tx) error {
			var err error
			written, err = lifecycle.ProgressServerRTC(tx, r.ID, p)
			return err
		})
		return written
	}
	if progress(protocol.RTCProgress{Progress: 1}) {
		t.Fatal("progress written before the call started")
	}
	delivered := f.rtc(t, r.ID)
	write(t, f.st, func(tx store.Tx) error {
		_, err := lifecycle.StartServerRTC(tx, delivered)
		return err
	})
	var audit *protocol.AuditRecord
	read := func() {
		if err := f.st.Read(t.Context(), func(tx store.Tx) error { var err error; audit, err = tx.AuditGet(r.ID); return err }); err != nil {
			t.Fatal(err)
		}
	}
	read()
	before, _ := json.Marshal(audit)
	started := f.rtc(t, r.ID)
	want := protocol.RTCProgress{Progress: 3, Total: 10, Message: "copying"}
	if !progress(want) {
		t.Fatal("progress of the executing call not written")
	}
	got := f.rtc(t, r.ID)
	if got.Status != protocol.RTCExecuting || got.Progress == nil || *got.Progress != want || got.Offset != started.Offset+1 {
		t.Fatalf("after progress: %s %+v offset %d (was %d)", got.Status, got.Progress, got.Offset, started.Offset)
	}
	if got.Audit == nil || !reflect.DeepEqual(got.Audit, started.Audit) {
		t.Fatalf("progress changed the audit state the call carries: %+v, was %+v", got.Audit, started.Audit)
	}
	read()
	if after, _ := json.Marshal(audit); string(after) != string(before) {
		t.Fatalf("progress changed the audit record:\n%s\n%s", before, after)
	}
	write(t, f.st, func(tx store.Tx) error {
		_, err := lifecycle.EndServerRTC(tx, r.ID, tools.ServerResult{OK: true, Output: json.RawMessage(`"done"`)})
		return err
	})
	ended := f.rtc(t, r.ID)
	if progress(protocol.RTCProgress{Progress: 9, Total: 10}) {
		t.Fatal("progress written after the call ended")
	}
	if got := f.rtc(t, r.ID); got.Offset != ended.Offset || *got.Progress != want {
		t.Fatalf("after the end: offset %d (was %d), progress %+v", got.Offset, ended.Offset, got.Progress)
	}
}

// whichForm is a one-field form of an MCP server's question.
func whichForm(t *testing.T) *tools.ElicitArgs {
	t.Helper()
	a, err := tools.NewElicitForm("test", "Which?", json.RawMessage(`{"type":"object","properties":{"n":{"type":"integer","minimum":1}},"required":["n"]}`), nil)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// The answer to an MCP server's question is checked against the question when
// it is submitted: one that does not fit (a missing required field, a value
// out of bounds, an unknown action, no JSON) is refused as invalid_argument
// and the question stays open for a fitting answer.
func TestElicitationAnswerIsChecked(t *testing.T) {
	f := newFixture(t)
	f.setTurn(t, protocol.TurnWaiting)
	q := &protocol.RTC{ID: core.NewID(), SessionID: f.sess, TurnID: f.turn, UserID: caller.UserID, ToolCallID: lifecycle.ElicitationCallID("c", 1),
		Seq: 1, Step: 1, ToolName: tools.Elicitation, Arguments: whichForm(t).JSON(), TimeoutMS: 60_000}
	write(t, f.st, func(tx store.Tx) error { return lifecycle.Deliver(tx, q, "") })
	submit := func(out string) error {
		return f.run(func(tx store.Tx) error {
			_, err := lifecycle.SubmitResult(tx, caller, &protocol.RTCSubmitResultRequest{RTCID: q.ID, ClientID: out, OK: true, Output: json.RawMessage(out)})
			return err
		})
	}
	for _, bad := range []string{`{"action":"accept","content":{}}`, `{"action":"accept","content":{"n":0}}`, `{"action":"accept","content":{"n":"1"}}`,
		`{"action":"maybe"}`, `"1"`} {
		if err := submit(bad); code(err) != protocol.CodeInvalidArgument {
			t.Fatalf("%s: %v", bad, err)
		}
		if got := f.rtc(t, q.ID); got.Status != protocol.RTCPending {
			t.Fatalf("%s left the question %s", bad, got.Status)
		}
	}
	if err := submit(`{"action":"accept","content":{"n":3}}`); err != nil {
		t.Fatal(err)
	}
	got := f.rtc(t, q.ID)
	ans, err := tools.CheckElicitAnswer(got.Arguments, got.Output)
	if got.Status != protocol.RTCCompleted || err != nil || ans.Action != "accept" || ans.Content["n"] != float64(3) {
		t.Fatalf("after a fitting answer: %s %+v %v", got.Status, ans, err)
	}
}

// A server's request to use the model is run by the call that made it, never
// by the turn's worker: neither its delivery nor its approval queues work. It
// asks the person unless the session allows that server's requests for the
// chat ("Allow for this chat" on the first keeps sampling:<server>), and its
// end records the answer and adds its tokens to the turn.
func TestSamplingRunsInItsCall(t *testing.T) {
	f := newFixture(t)
	f.setTurn(t, protocol.TurnWaiting)
	call := &protocol.RTC{ID: core.NewID(), SessionID: f.sess, TurnID: f.turn, UserID: caller.UserID, ToolCallID: "c1",
		Seq: 1, Step: 1, ToolName: "test__sample", Status: protocol.RTCQueued, TimeoutMS: 60_000, Executor: protocol.RTCExecutorServer}
	write(t, f.st, func(tx store.Tx) error {
		if err := lifecycle.Deliver(tx, call, ""); err != nil {
			return err
		}
		it, err := tx.InboxNext(f.sess)
		if err != nil {
			return err
		}
		if err := tx.InboxDelete(*it); err != nil {
			return err
		}
		_, err = lifecycle.StartServerRTC(tx, call)
		return err
	})
	ask := func(n int64) *protocol.RTC {
		id := core.NewID()
		write(t, f.st, func(tx store.Tx) error {
			return lifecycle.Ask(tx, lifecycle.Question{ParentID: call.ID, N: n, ID: id, Args: json.RawMessage(`{"server":"test","messages":[{"role":"user","text":"hi"}],"max_tokens":5}`),
				Human: time.Minute, Tool: tools.SamplingTool("test")})
		})
		return f.rtc(t, id)
	}
	first := ask(1)
	if first.Status != protocol.RTCPending || !first.NeedsConfirmation || first.Executor != protocol.RTCExecutorServer || f.inbox(t) != nil {
		t.Fatalf("the first request: %s, needs confirmation %v, executor %q, inbox %+v", first.Status, first.NeedsConfirmation, first.Executor, f.inbox(t))
	}
	write(t, f.st, func(tx store.Tx) error {
		_, err := lifecycle.ApproveRTC(tx, caller, &protocol.RTCApproveRequest{RTCID: first.ID, ClientID: "a", Approval: &protocol.ApprovalAnswer{Scope: protocol.ScopeSession}})
		return err
	})
	if got := f.rtc(t, first.ID); !got.Approved() || f.inbox(t) != nil || !f.session(t).HasApproval(tools.SamplingTool("test")) {
		t.Fatalf("after the approval: approved %v, inbox %+v, approvals %+v", got.Approved(), f.inbox(t), f.session(t).Approvals)
	}
	before := f.getTurn(t, f.turn).Usage
	write(t, f.st, func(tx store.Tx) error {
		return lifecycle.EndSample(tx, first.ID, true, json.RawMessage(`"hello"`), "", protocol.Usage{InputTokens: 7, OutputTokens: 3})
	})
	if got := f.rtc(t, first.ID); got.Status != protocol.RTCCompleted || string(got.Output) != `"hello"` {
		t.Fatalf("after the answer: %s %s", got.Status, got.Output)
	}
	if u := f.getTurn(t, f.turn).Usage; u.InputTokens != before.InputTokens+7 || u.OutputTokens != before.OutputTokens+3 {
		t.Fatalf("the turn's usage %+v, was %+v", u, before)
	}
	if got := f.rtc(t, call.ID); got.Status != protocol.RTCExecuting {
		t.Fatalf("the request's end changed its call: %s", got.Status)
	}
	second := ask(2)
	if second.NeedsConfirmation || second.Decision == nil || !second.Decision.Standing || f.inbox(t) != nil {
		t.Fatalf("the second request: needs confirmation %v, decision %+v, inbox %+v", second.NeedsConfirmation, second.Decision, f.inbox(t))
	}
}
