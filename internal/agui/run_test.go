package agui

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/rtcagent/rtcagent/internal/protocol"
)

// recorder collects a run's events as "TYPE field" lines.
type recorder struct{ lines []string }

func (rec *recorder) emit(v any) error {
	b, _ := json.Marshal(v)
	var m map[string]any
	_ = json.Unmarshal(b, &m)
	line := m["type"].(string)
	for _, k := range []string{"delta", "toolCallName", "content", "stepName", "code"} {
		if s, ok := m[k].(string); ok {
			line += " " + s
		}
	}
	if o, ok := m["outcome"].(map[string]any); ok {
		line += " " + o["type"].(string)
		if p, ok := o["pendingToolCallIds"].([]any); ok {
			line += " pending=" + p[0].(string)
		}
	}
	rec.lines = append(rec.lines, line)
	return nil
}

func (rec *recorder) String() string { return strings.Join(rec.lines, "\n") }

func update(offset int64, entities ...protocol.Keyed) *protocol.Update {
	u := &protocol.Update{Offset: offset}
	for _, e := range entities {
		b, _ := json.Marshal(e)
		typ, _, _ := strings.Cut(e.TopicKey(), "/")
		u.Changes = append(u.Changes, protocol.Change{Type: typ + ".updated", Data: b})
	}
	return u
}

func newTestRun(t *testing.T, turnID string, answered ...string) (*run, *recorder) {
	t.Helper()
	rec := &recorder{}
	in := &RunInput{ThreadID: "t", RunID: "r"}
	r := newRun(rec.emit, in, "s", turnID, answered)
	if err := r.start(in, &state{}, nil); err != nil {
		t.Fatal(err)
	}
	return r, rec
}

func TestRunStreamsTextInOrderAndCompletesIt(t *testing.T) {
	r, rec := newTestRun(t, "turn")
	msg := &protocol.Message{ID: "m", SessionID: "s", TurnID: "turn", Role: protocol.RoleAssistant, Status: protocol.MessageStreaming, Offset: 2}
	// Chunks that arrive before the message's Topic update wait for it.
	for i, d := range []string{"Hel", "lo "} {
		if err := r.delta(&protocol.Delta{SessionID: "s", MessageID: "m", Seq: int64(i + 1), Kind: "text", Delta: d}); err != nil {
			t.Fatal(err)
		}
	}
	running := &protocol.Turn{ID: "turn", SessionID: "s", Status: protocol.TurnRunning, Offset: 2}
	must(t, r.update(update(2, msg, running)))
	// A repeated chunk is dropped; a missed one (4) leaves the rest to the end.
	must(t, r.delta(&protocol.Delta{SessionID: "s", MessageID: "m", Seq: 2, Kind: "text", Delta: "lo "}))
	must(t, r.delta(&protocol.Delta{SessionID: "s", MessageID: "m", Seq: 4, Kind: "text", Delta: "!"}))
	done := *msg
	done.Status, done.Text, done.Offset = protocol.MessageComplete, "Hello world!", 3
	ended := *running
	ended.Status, ended.Step, ended.Offset = protocol.TurnCompleted, 1, 3
	u := update(3, &done, &ended)
	must(t, r.update(u))
	must(t, r.update(u)) // the same update again (read and received) changes nothing
	want := `RUN_STARTED
STEP_STARTED step 1
TEXT_MESSAGE_START
TEXT_MESSAGE_CONTENT Hel
TEXT_MESSAGE_CONTENT lo 
TEXT_MESSAGE_CONTENT world!
TEXT_MESSAGE_END
STEP_FINISHED step 1
RUN_FINISHED success`
	if got := rec.String(); got != want {
		t.Fatalf("events:\n%s\nwant:\n%s", got, want)
	}
}

func TestRunEndsAtTheClientsCall(t *testing.T) {
	r, rec := newTestRun(t, "turn")
	server := &protocol.RTC{ID: "c1", SessionID: "s", MessageID: "m", ToolName: "docs__search", Executor: protocol.RTCExecutorServer,
		Status: protocol.RTCCompleted, Output: json.RawMessage(`"found"`), Arguments: json.RawMessage(`{}`), Offset: 2}
	client := &protocol.RTC{ID: "c2", SessionID: "s", MessageID: "m", ToolName: "get_weather", Status: protocol.RTCPending,
		Arguments: json.RawMessage(`{"city":"Paris"}`), Offset: 2}
	queued := &protocol.RTC{ID: "c3", SessionID: "s", MessageID: "m", ToolName: "get_weather", Status: protocol.RTCQueued, Offset: 2}
	must(t, r.update(update(2, server, client, queued)))
	want := `RUN_STARTED
TOOL_CALL_START docs__search
TOOL_CALL_ARGS {}
TOOL_CALL_END
TOOL_CALL_RESULT found
TOOL_CALL_START get_weather
TOOL_CALL_ARGS {"city":"Paris"}
TOOL_CALL_END
RUN_FINISHED success pending=c2`
	if got := rec.String(); got != want {
		t.Fatalf("events:\n%s\nwant:\n%s", got, want)
	}
}

func TestRunDoesNotWaitForWhatItAnswered(t *testing.T) {
	rec := &recorder{}
	in := &RunInput{ThreadID: "t", RunID: "r", Messages: []Message{{ID: "x", Role: "assistant", ToolCalls: []ToolCall{{ID: "c2"}}}}}
	s := &state{session: &protocol.Session{ID: "s", ActiveTurnID: "turn"}, rtcs: map[string][]protocol.RTC{"m": {{ID: "c2", SessionID: "s",
		MessageID: "m", Status: protocol.RTCPending}}}, messages: []protocol.Message{{ID: "m", SessionID: "s", Role: protocol.RoleAssistant, Status: protocol.MessageComplete}}}
	r := newRun(rec.emit, in, "s", "turn", []string{"c2"})
	must(t, r.start(in, s, nil))
	if r.done {
		t.Fatalf("the run finished on the call it answered:\n%s", rec)
	}
	// Its end, by this client's result, is not sent back; the turn goes on.
	must(t, r.update(update(5, &protocol.RTC{ID: "c2", SessionID: "s", MessageID: "m", Status: protocol.RTCCompleted, ClientID: resultPrefix + "c2", Offset: 5})))
	failed := &protocol.Turn{ID: "turn", SessionID: "s", Status: protocol.TurnFailed, Offset: 6,
		Error: &protocol.TurnError{Category: "model_error", Message: "the model failed"}}
	must(t, r.update(update(6, failed, &protocol.Session{ID: "s", Offset: 6})))
	if got, want := rec.String(), "RUN_STARTED\nRUN_ERROR model_error"; got != want {
		t.Fatalf("events:\n%s\nwant:\n%s", got, want)
	}
}

func TestRunOfAStoppedTurnIsCancelled(t *testing.T) {
	r, rec := newTestRun(t, "turn")
	must(t, r.update(update(2, &protocol.Turn{ID: "turn", SessionID: "s", Status: protocol.TurnStopped, Offset: 2})))
	if got, want := rec.String(), "RUN_STARTED\nRUN_FINISHED cancelled"; got != want {
		t.Fatalf("events:\n%s\nwant:\n%s", got, want)
	}
}

// TestRunResync: after the feed was lost, the thread read again brings what
// changed meanwhile: the rest of a message that streamed, and the turn's end.
func TestRunResync(t *testing.T) {
	r, rec := newTestRun(t, "turn")
	msg := &protocol.Message{ID: "m", SessionID: "s", Role: protocol.RoleAssistant, Status: protocol.MessageStreaming, Offset: 2}
	running := &protocol.Turn{ID: "turn", SessionID: "s", Status: protocol.TurnRunning, Offset: 2}
	must(t, r.update(update(2, msg, running)))
	must(t, r.delta(&protocol.Delta{SessionID: "s", MessageID: "m", Seq: 1, Kind: "text", Delta: "Hel"}))
	done := *msg
	done.Status, done.Text, done.Offset = protocol.MessageComplete, "Hello.", 4
	ended := *running
	ended.Status, ended.Step, ended.Offset = protocol.TurnCompleted, 1, 4
	s := &state{session: &protocol.Session{ID: "s", Offset: 4}, messages: []protocol.Message{done}, turn: &ended}
	must(t, r.resync(s))
	must(t, r.resync(s)) // read twice: nothing more
	want := `RUN_STARTED
STEP_STARTED step 1
TEXT_MESSAGE_START
TEXT_MESSAGE_CONTENT Hel
TEXT_MESSAGE_CONTENT lo.
TEXT_MESSAGE_END
STEP_FINISHED step 1
RUN_FINISHED success`
	if got := rec.String(); got != want {
		t.Fatalf("events:\n%s\nwant:\n%s", got, want)
	}
}

func TestInput(t *testing.T) {
	if ThreadSession("u1", "t") == ThreadSession("u2", "t") || ThreadSession("u1", "t") != ThreadSession("u1", "t") {
		t.Fatal("a thread's session is per user and stable")
	}
	text, err := Message{ID: "m", Content: json.RawMessage(`[{"type":"text","text":"a"},{"type":"text","text":"b"}]`)}.text()
	if err != nil || text != "ab" {
		t.Fatalf("text parts: %q %v", text, err)
	}
	if _, err := (Message{ID: "m", Content: json.RawMessage(`[{"type":"image"}]`)}).text(); err == nil {
		t.Fatal("an image part is refused")
	}
	for _, s := range []string{`{"a":1}`, "plain text", `"quoted"`} {
		if got := outputText(output(s)); got != s {
			t.Fatalf("result %q came back as %q", s, got)
		}
	}
	in := RunInput{ThreadID: "t", RunID: strings.Repeat("r", 200)}
	if err := in.check(protocol.Limits{}.WithDefaults()); err == nil {
		t.Fatal("a long run id is refused")
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
