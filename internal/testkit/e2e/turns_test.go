package e2e

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/rtcagent/rtcagent/internal/config"
	"github.com/rtcagent/rtcagent/internal/llm"
	"github.com/rtcagent/rtcagent/internal/protocol"
)

const turnsScript = `{"name": "turns", "turns": [
  {"match": "slow", "steps": [{"chunks": ["a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k", "l"], "delay_ms": 100}]},
  {"match": "tool", "steps": [
    {"tool_calls": [{"name": "ls", "arguments": {"path": "/"}}]},
    {"text": "listed: {{last_result}}"}]},
  {"match": "loop", "steps": [
    {"tool_calls": [{"name": "ls", "arguments": {}}]},
    {"tool_calls": [{"name": "ls", "arguments": {}}]},
    {"tool_calls": [{"name": "ls", "arguments": {}}]},
    {"text": "never reached"}]},
  {"match": "modes", "steps": [
    {"tool_calls": [{"name": "write", "arguments": {"path": "/p.txt", "content": "x"}}, {"name": "script", "arguments": {"action": "eval", "code": "1"}}, {"name": "read", "arguments": {"path": "/p.txt"}}, {"name": "edit", "arguments": {"path": "/.scripts/fib.js", "old_string": "a", "new_string": "b"}}]},
    {"text": "done"}]},
  {"steps": [{"text": "echo: {{user}}"}]}
]}`

func TestStopWhileStreaming(t *testing.T) {
	s := startServer(t, mustScript(t, turnsScript))
	b := newBrowser(t, s, "alice", "dev-a")
	res := b.send("", "slow please")
	waitFor(t, "streaming to start", 5*time.Second, func() bool {
		b.mu.Lock()
		defer b.mu.Unlock()
		return len(b.deltas) > 0
	})
	var stopped protocol.TurnResult
	b.mustCall(protocol.MethodTurnStop, protocol.IDRequest{SessionID: res.SessionID}, &stopped)
	turn := b.waitTurn(res.TurnID, 5*time.Second)
	if turn.Status != protocol.TurnStopped {
		t.Fatalf("turn %s", turn.Status)
	}
	var m protocol.Message
	waitFor(t, "the message to be closed", 5*time.Second, func() bool {
		msgs := b.assistantMessages(res.SessionID)
		if len(msgs) == 1 && msgs[0].Status == protocol.MessageInterrupted {
			m = msgs[0]
			return true
		}
		return false
	})
	if m.Text == "" || len(m.Text) >= 12 {
		t.Fatalf("interrupted text %q", m.Text)
	}
	// The session is not stuck: the next message runs.
	next := b.send(res.SessionID, "hello again")
	if tr := b.waitTurn(next.TurnID, 5*time.Second); tr.Status != protocol.TurnCompleted {
		t.Fatalf("next turn %s", tr.Status)
	}
}

func TestStopWhileWaitingEndsRTCs(t *testing.T) {
	s := startServer(t, mustScript(t, turnsScript))
	b := newBrowser(t, s, "alice", "dev-a", noExecute)
	res := b.send("", "tool")
	r := b.pendingRTC()
	b.mustCall(protocol.MethodTurnStop, protocol.IDRequest{SessionID: res.SessionID}, nil)
	if tr := b.waitTurn(res.TurnID, 5*time.Second); tr.Status != protocol.TurnStopped {
		t.Fatalf("turn %s", tr.Status)
	}
	var got protocol.RTCResult
	b.mustCall(protocol.MethodRTCGet, protocol.IDRequest{RTCID: r.ID}, &got)
	if got.RTC.Status != protocol.RTCFailed || !strings.HasPrefix(got.RTC.Error, "cancelled") {
		t.Fatalf("rtc after stop: %s %q", got.RTC.Status, got.RTC.Error)
	}
	// A result arriving after the stop is answered with the stored outcome.
	var late protocol.RTCResult
	b.mustCall(protocol.MethodRTCSubmitResult, protocol.RTCSubmitResultRequest{RTCID: r.ID, ClientID: "late", OK: true, Output: jsonOf("x")}, &late)
	if late.RTC.Status != protocol.RTCFailed {
		t.Fatalf("late result applied: %s", late.RTC.Status)
	}
}

func TestMessageWhileTurnRunsIsQueued(t *testing.T) {
	model := mustScript(t, turnsScript)
	s := startServer(t, model)
	b := newBrowser(t, s, "alice", "dev-a", noExecute)
	first := b.send("", "tool")
	r := b.pendingRTC()
	second := b.send(first.SessionID, "second message")
	time.Sleep(300 * time.Millisecond) // give a wrong implementation the chance to start it
	if tr, _ := b.turn(second.TurnID); tr.Status != protocol.TurnQueued {
		t.Fatalf("second turn is %s while the first waits", tr.Status)
	}
	b.mustCall(protocol.MethodRTCSubmitResult, protocol.RTCSubmitResultRequest{RTCID: r.ID, ClientID: "c", OK: true, Output: jsonOf("/notes.txt")}, nil)
	if tr := b.waitTurn(first.TurnID, 5*time.Second); tr.Status != protocol.TurnCompleted {
		t.Fatalf("first turn %s", tr.Status)
	}
	if tr := b.waitTurn(second.TurnID, 5*time.Second); tr.Status != protocol.TurnCompleted {
		t.Fatalf("second turn %s", tr.Status)
	}
	msgs := b.assistantMessages(first.SessionID)
	if last := msgs[len(msgs)-1]; last.Text != "echo: second message" {
		t.Fatalf("last answer %q", last.Text)
	}
	// The first turn's model calls never saw the queued message.
	for _, req := range model.Requests() {
		users := 0
		for _, m := range req.Messages {
			if m.Role == llm.RoleUser {
				users++
			}
		}
		last := req.Messages[len(req.Messages)-1]
		if users == 1 && last.Role == llm.RoleUser && last.Text != "tool" {
			t.Fatalf("first turn saw %q", last.Text)
		}
		if users == 2 && req.Messages[len(req.Messages)-1].Text != "second message" {
			t.Fatalf("second turn request ends with %+v", last)
		}
	}
}

func TestStepLimit(t *testing.T) {
	s := startServer(t, mustScript(t, turnsScript), func(c *config.Config) { c.StepLimit = 2 })
	b := newBrowser(t, s, "alice", "dev-a")
	res := b.send("", "loop")
	turn := b.waitTurn(res.TurnID, 10*time.Second)
	if turn.Status != protocol.TurnFailed || turn.Error == nil || turn.Error.Category != "step_limit" {
		t.Fatalf("turn %s %+v", turn.Status, turn.Error)
	}
	msgs := b.assistantMessages(res.SessionID)
	last := msgs[len(msgs)-1]
	if last.Status != protocol.MessageError || !strings.Contains(last.Text, "2 model steps") {
		t.Fatalf("error message %q (%s)", last.Text, last.Status)
	}
}

func TestWorkModes(t *testing.T) {
	model := mustScript(t, turnsScript)
	s := startServer(t, model)
	cases := []struct {
		mode   string
		states map[string]string // tool → status or "confirm"/"auto" for delivered calls
	}{
		// edit is of a saved script: a protected path, which asks in edit mode too.
		{protocol.ModePlan, map[string]string{"write": protocol.RTCRejected, "script": protocol.RTCRejected, "read": "auto", "edit": protocol.RTCRejected}},
		{protocol.ModeManual, map[string]string{"write": "confirm", "script": "confirm", "read": "auto", "edit": "confirm"}},
		{protocol.ModeEdit, map[string]string{"write": "auto", "script": "confirm", "read": "auto", "edit": "confirm"}},
		{protocol.ModeBypass, map[string]string{"write": "auto", "script": "auto", "read": "auto", "edit": "auto"}},
	}
	for _, c := range cases {
		t.Run(c.mode, func(t *testing.T) {
			b := newBrowser(t, s, "user-"+c.mode, "dev")
			b.decide = func(r protocol.RTC) (bool, any, string, bool) { return true, "ok", "", false }
			var res protocol.MessageSendResult
			b.mustCall(protocol.MethodMessageSend, protocol.MessageSendRequest{ClientID: "m", WorkMode: c.mode, Content: protocol.MessageContent{Text: "modes"}}, &res)
			if tr := b.waitTurn(res.TurnID, 10*time.Second); tr.Status != protocol.TurnCompleted {
				t.Fatalf("turn %s", tr.Status)
			}
			var rtcs protocol.RTCListResult
			b.mustCall(protocol.MethodRTCList, protocol.ListRequest{SessionID: res.SessionID}, &rtcs)
			for _, r := range rtcs.RTCs {
				want := c.states[r.ToolName]
				got := map[bool]string{true: "confirm", false: "auto"}[r.NeedsConfirmation]
				if r.Status == protocol.RTCRejected {
					got = protocol.RTCRejected
					if !strings.Contains(r.Error, "plan mode") {
						t.Errorf("plan refusal text %q", r.Error)
					}
				}
				if got != want {
					t.Errorf("%s in %s: %s, want %s", r.ToolName, c.mode, got, want)
				}
			}
		})
	}
}

func TestUpdateListGapFillAndReset(t *testing.T) {
	s := startServer(t, mustScript(t, turnsScript))
	b := newBrowser(t, s, "alice", "dev-a")
	res := b.send("", "hello")
	b.waitTurn(res.TurnID, 5*time.Second)
	var all protocol.UpdateListResult
	b.mustCall(protocol.MethodUpdateList, protocol.UpdateListRequest{SinceOffset: 0}, &all)
	if all.Reset || int64(len(all.Updates)) != all.Top || all.Updates[0].Offset != 1 {
		t.Fatalf("full list: reset %v, %d updates, top %d", all.Reset, len(all.Updates), all.Top)
	}
	var page protocol.UpdateListResult
	b.mustCall(protocol.MethodUpdateList, protocol.UpdateListRequest{SinceOffset: 1, Epoch: all.Epoch, Limit: 2}, &page)
	if page.Reset || len(page.Updates) != 2 || page.Updates[0].Offset != 2 {
		t.Fatalf("page: %+v", page)
	}
	for _, req := range []protocol.UpdateListRequest{{SinceOffset: 1, Epoch: "other"}, {SinceOffset: all.Top + 5, Epoch: all.Epoch}} {
		var r protocol.UpdateListResult
		b.mustCall(protocol.MethodUpdateList, req, &r)
		if !r.Reset || len(r.Updates) != 0 || r.Epoch != all.Epoch {
			t.Fatalf("%+v: want reset, got %+v", req, r)
		}
	}
	// The payloads equal what the client received live.
	b.waitOffset(all.Top)
	b.mu.Lock()
	defer b.mu.Unlock()
	for i, u := range all.Updates {
		live, _ := json.Marshal(b.updates[i])
		listed, _ := json.Marshal(u)
		if !jsonEqual(live, listed) {
			t.Fatalf("update %d differs: live %s, listed %s", u.Offset, live, listed)
		}
	}
}

func jsonEqual(a, b json.RawMessage) bool {
	var x, y any
	return json.Unmarshal(a, &x) == nil && json.Unmarshal(b, &y) == nil && string(jsonOf(x)) == string(jsonOf(y))
}

// A brief disconnect: the updates committed meanwhile arrive through Centrifuge
// recovery (from the database history) on reconnect, without gaps or duplicates.
func TestBriefDisconnectRecovers(t *testing.T) {
	s := startServer(t, mustScript(t, turnsScript))
	watcher := newBrowser(t, s, "alice", "tablet", noExecute)
	phone := newBrowser(t, s, "alice", "phone")
	first := phone.send("", "hello")
	phone.waitTurn(first.TurnID, 5*time.Second)
	if err := watcher.c.Disconnect(); err != nil {
		t.Fatal(err)
	}
	res := phone.send(first.SessionID, "tool")
	phone.waitTurn(res.TurnID, 5*time.Second)
	var ul protocol.UpdateListResult
	phone.mustCall(protocol.MethodUpdateList, protocol.UpdateListRequest{Limit: 1}, &ul)
	if err := watcher.c.Connect(); err != nil {
		t.Fatal(err)
	}
	watcher.waitOffset(ul.Top)
	if n := watcher.checkOffsets(); int64(n) != ul.Top {
		t.Fatalf("watcher saw %d of %d updates", n, ul.Top)
	}
	if tr, _ := watcher.turn(res.TurnID); tr.Status != protocol.TurnCompleted {
		t.Fatalf("watcher's view of the turn: %s", tr.Status)
	}
}

// A client joining mid-stream gets the text so far from v1.message.get and
// completes it with the Live deltas of higher seq.
func TestJoinMidStream(t *testing.T) {
	t.Run("memory", func(t *testing.T) { joinMidStream(t) })
	t.Run("redis", func(t *testing.T) {
		url := requireRedis(t)
		joinMidStream(t, func(c *config.Config) { c.RedisURL, c.RedisPfx = url, uniquePrefix() })
	})
}

func joinMidStream(t *testing.T, opts ...serverOpt) {
	s := startServer(t, mustScript(t, turnsScript), opts...)
	b := newBrowser(t, s, "alice", "dev-a")
	res := b.send("", "slow please")
	var msgID string
	waitFor(t, "three deltas", 5*time.Second, func() bool {
		b.mu.Lock()
		defer b.mu.Unlock()
		for id, ds := range b.deltas {
			if len(ds) >= 3 {
				msgID = id
				return true
			}
		}
		return false
	})
	var got protocol.MessageGetResult
	b.mustCall(protocol.MethodMessageGet, protocol.IDRequest{MessageID: msgID}, &got)
	if got.Message.Status != protocol.MessageStreaming || got.DeltaSeq < 3 || int64(len(got.Message.Text)) != got.DeltaSeq {
		t.Fatalf("mid-stream get: %s %q seq %d", got.Message.Status, got.Message.Text, got.DeltaSeq)
	}
	b.waitTurn(res.TurnID, 10*time.Second)
	text := got.Message.Text
	b.mu.Lock()
	for _, d := range b.deltas[msgID] {
		if d.Seq > got.DeltaSeq {
			text += d.Delta
		}
	}
	b.mu.Unlock()
	if text != "abcdefghijkl" {
		t.Fatalf("joined text %q", text)
	}
}

// Fork: the history before a user message is copied into a new session, the
// message is replaced, the model runs on the copy; the source is unchanged.
func TestForkSession(t *testing.T) {
	model := mustScript(t, turnsScript)
	s := startServer(t, model)
	b := newBrowser(t, s, "alice", "dev-a")
	first := b.send("", "tool")
	b.waitTurn(first.TurnID, 5*time.Second)
	second := b.send(first.SessionID, "hello again")
	b.waitTurn(second.TurnID, 5*time.Second)

	var fork protocol.MessageSendResult
	b.mustCall(protocol.MethodSessionFork, protocol.SessionForkRequest{ClientID: "f1", SessionID: first.SessionID, MessageID: second.MessageID, Text: "forked text"}, &fork)
	if fork.SessionID == first.SessionID {
		t.Fatal("fork reused the session")
	}
	if tr := b.waitTurn(fork.TurnID, 5*time.Second); tr.Status != protocol.TurnCompleted || tr.Seq != 2 {
		t.Fatalf("fork turn %s seq %d", tr.Status, tr.Seq)
	}
	var msgs protocol.MessageListResult
	b.mustCall(protocol.MethodMessageList, protocol.ListRequest{SessionID: fork.SessionID}, &msgs)
	var texts []string
	for _, m := range msgs.Messages {
		texts = append(texts, m.Role+":"+m.Text)
	}
	if got := strings.Join(texts, "|"); !strings.HasPrefix(got, "user:tool|assistant:|assistant:listed: ") ||
		!strings.HasSuffix(got, "|user:forked text|assistant:echo: forked text") || len(texts) != 5 {
		t.Fatalf("fork messages %s", got)
	}
	var rtcs protocol.RTCListResult
	b.mustCall(protocol.MethodRTCList, protocol.ListRequest{SessionID: fork.SessionID}, &rtcs)
	if len(rtcs.RTCs) != 1 || rtcs.RTCs[0].Status != protocol.RTCCompleted || rtcs.RTCs[0].MessageID != msgs.Messages[1].ID {
		t.Fatalf("fork rtcs %+v", rtcs.RTCs)
	}
	// The model saw the copied tool call with its result.
	reqs := model.Requests()
	last := reqs[len(reqs)-1]
	if len(last.Messages) != 5 || last.Messages[2].Role != llm.RoleTool || last.Messages[4].Text != "forked text" {
		t.Fatalf("fork request %+v", last.Messages)
	}
	// The source keeps its messages; a second fork call with the same client_id is a replay.
	var src protocol.MessageListResult
	b.mustCall(protocol.MethodMessageList, protocol.ListRequest{SessionID: first.SessionID}, &src)
	if len(src.Messages) != 5 || src.Messages[3].Text != "hello again" {
		t.Fatalf("source changed: %d messages", len(src.Messages))
	}
	var again protocol.MessageSendResult
	b.mustCall(protocol.MethodSessionFork, protocol.SessionForkRequest{ClientID: "f1", SessionID: first.SessionID, MessageID: second.MessageID}, &again)
	if again != fork {
		t.Fatalf("replayed fork %+v != %+v", again, fork)
	}
}
