package agent

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/rtcagent/rtcagent/internal/llm"
	"github.com/rtcagent/rtcagent/internal/protocol"
)

func TestResultText(t *testing.T) {
	cases := []struct {
		r    protocol.RTC
		want string
	}{
		{protocol.RTC{Status: protocol.RTCCompleted, Output: json.RawMessage(`"plain"`)}, "plain"},
		{protocol.RTC{Status: protocol.RTCCompleted, Output: json.RawMessage(`{ "a" : 1 }`)}, `{"a":1}`},
		{protocol.RTC{Status: protocol.RTCCompleted}, "(no output)"},
		{protocol.RTC{Status: protocol.RTCFailed, Error: "ENOENT"}, "[Tool Error] ENOENT"},
		{protocol.RTC{Status: protocol.RTCTimeout, ToolName: "read", TimeoutMS: 300000}, "[Tool Timeout] read gave no result within 300 s."},
		{protocol.RTC{Status: protocol.RTCRejected, ToolName: "write"}, "[Tool Rejected] The user declined to run write."},
		{protocol.RTC{Status: protocol.RTCRejected, Error: "not now"}, "[Tool Rejected] not now"},
		{protocol.RTC{Status: protocol.RTCExecuting}, "[Tool Pending]"},
		{protocol.RTC{Status: protocol.RTCQueued}, "[Tool Pending]"},
	}
	for _, c := range cases {
		if got := ResultText(&c.r, 1000); got != c.want {
			t.Errorf("%s: %q, want %q", c.r.Status, got, c.want)
		}
	}
}

func TestTruncateKeepsHeadAndTail(t *testing.T) {
	s := strings.Repeat("é", 500) + "MIDDLE" + strings.Repeat("ü", 500)
	got := Truncate(s, 300)
	if len(got) > 300 || !utf8.ValidString(got) || !strings.Contains(got, "bytes omitted") {
		t.Fatalf("len %d valid %v: %q", len(got), utf8.ValidString(got), got)
	}
	if !strings.HasPrefix(got, "éé") || !strings.HasSuffix(got, "üü") {
		t.Fatalf("head/tail lost: %q", got)
	}
	if Truncate("short", 300) != "short" {
		t.Fatal("short text changed")
	}
}

func TestBuildMessagesOrdersTurnsAndPairsResults(t *testing.T) {
	now := time.Now()
	tr := Transcript{
		Turns: []protocol.Turn{{ID: "t1", Seq: 1}, {ID: "t2", Seq: 2}, {ID: "t3", Seq: 3}},
		Messages: []protocol.Message{
			{ID: "u1", TurnID: "t1", Seq: 1, Role: protocol.RoleUser, Text: "first"},
			{ID: "a1", TurnID: "t1", Seq: 2, Role: protocol.RoleAssistant, Text: "calling", Status: protocol.MessageComplete,
				ToolCalls: []protocol.ToolCall{{ID: "c1", Name: "read", Arguments: json.RawMessage(`{"path":"/a"}`)}, {ID: "c2", Name: "ls"}}},
			{ID: "u2", TurnID: "t2", Seq: 3, Role: protocol.RoleUser, Text: "second (sent while t1 ran)"},
			{ID: "a2", TurnID: "t1", Seq: 4, Role: protocol.RoleAssistant, Text: "answer 1", Status: protocol.MessageComplete},
			{ID: "e2", TurnID: "t2", Seq: 5, Role: protocol.RoleAssistant, Text: "provider down", Status: protocol.MessageError},
			{ID: "i2", TurnID: "t2", Seq: 7, Role: protocol.RoleAssistant, Text: "cut mid-", Status: protocol.MessageInterrupted},
			{ID: "u3", TurnID: "t3", Seq: 6, Role: protocol.RoleUser, Text: "third"},
		},
		RTCs: []protocol.RTC{
			{MessageID: "a1", ToolCallID: "c1", Status: protocol.RTCCompleted, Output: json.RawMessage(`"content"`), CreatedAt: now},
		},
	}
	got := BuildMessages(tr, 2, 1000)
	var lines []string
	for _, m := range got {
		lines = append(lines, fmt.Sprintf("%s:%s:%s", m.Role, m.ToolCallID, m.Text))
	}
	want := []string{
		"user::first", "assistant::calling", "tool:c1:content", "tool:c2:[Tool Error] the call was not executed",
		"assistant::answer 1", "user::second (sent while t1 ran)",
	}
	if strings.Join(lines, "|") != strings.Join(want, "|") {
		t.Fatalf("got\n%s\nwant\n%s", strings.Join(lines, "\n"), strings.Join(want, "\n"))
	}
}

// AdmitCall keeps a call within its limits as it is, cuts one over the call
// limit or past the step's, and says why.
func TestAdmitCall(t *testing.T) {
	lim := protocol.Limits{ToolArgsBytes: 1000, StepArgsBytes: 1500}.WithDefaults()
	args := func(n int) json.RawMessage {
		return json.RawMessage(`{"path":"/a","content":"` + strings.Repeat("x", n) + `"}`)
	}
	ok := AdmitCall(llm.ToolCall{ID: "1", Name: "write", Arguments: args(800)}, lim, 0, 0)
	if ok.Cut != "" || len(ok.Arguments) != len(args(800)) {
		t.Fatalf("a call within the limits: %q, %d bytes", ok.Cut, len(ok.Arguments))
	}
	big := AdmitCall(llm.ToolCall{ID: "2", Name: "write", Arguments: args(5000)}, lim, 0, 0)
	if !strings.Contains(big.Cut, fmt.Sprintf("too large: %d bytes, more than the limit of 1000", len(args(5000)))) || !json.Valid(big.Arguments) {
		t.Fatalf("a call over the limit: %q, %.200s", big.Cut, big.Arguments)
	}
	step := AdmitCall(llm.ToolCall{ID: "3", Name: "write", Arguments: args(800)}, lim, len(ok.Arguments), 0)
	if !strings.Contains(step.Cut, "pass 1500 bytes") {
		t.Fatalf("a call past the step's limit: %q", step.Cut)
	}
	// A model's id shaped as a view's call's or a server's question's is
	// never taken for one.
	for _, id := range []string{"app:r1:k", "elicit:r1:1"} {
		if got := AdmitCall(llm.ToolCall{ID: id, Name: "ls", Arguments: json.RawMessage(`{}`)}, lim, 0, 0).ID; got != "model:"+id {
			t.Fatalf("a model's call id %q is kept as %q", id, got)
		}
	}
	long := AdmitCall(llm.ToolCall{ID: strings.Repeat("i", 500), Name: strings.Repeat("n", 500), Arguments: args(1)}, lim, 0, 0)
	if len(long.ID) > lim.IDBytes || len(long.Name) > lim.IDBytes {
		t.Fatalf("id %d and name %d bytes", len(long.ID), len(long.Name))
	}
	// A step runs at most StepCalls calls: the next one fails and says so,
	// and the ones after it are left out.
	last := AdmitCall(llm.ToolCall{ID: "65", Name: "ls", Arguments: json.RawMessage(`{}`)}, lim, 0, lim.StepCalls-1)
	over := AdmitCall(llm.ToolCall{ID: "66", Name: "ls", Arguments: json.RawMessage(`{}`)}, lim, 0, lim.StepCalls)
	if last.Cut != "" || !strings.Contains(over.Cut, "too many tool calls in one step: at most 64 run") ||
		StepCallsFull(lim, lim.StepCalls) || !StepCallsFull(lim, lim.StepCalls+1) {
		t.Fatalf("the step's calls: %q / %q", last.Cut, over.Cut)
	}
}

// askUser arguments over their bound are rebuilt from askUser's fields, each
// cut with a note; ones not in askUser's shape are cut like any call.
func TestAdmitAskUser(t *testing.T) {
	lim := protocol.Limits{}.WithDefaults()
	q := func(text string) string {
		return `{"question":"` + text + `","options":[{"label":"a"},{"label":"b"},{"label":"c"},{"label":"d"},{"label":"e"}]}`
	}
	raw := `{"questions":[` + q(strings.Repeat("q", 20<<10)) + `,` + q("2") + `,` + q("3") + `,` + q("4") + `,` + q("5") + `],"extra":"` + strings.Repeat("z", 10<<10) + `"}`
	c := AdmitCall(llm.ToolCall{ID: "1", Name: "askUser", Arguments: json.RawMessage(raw)}, lim, 0, 0)
	var got struct {
		Questions []struct {
			Question string
			Options  []struct{ Label string }
		}
	}
	if err := json.Unmarshal(c.Arguments, &got); err != nil || c.Cut != "" {
		t.Fatalf("%v %q", err, c.Cut)
	}
	if len(got.Questions) != 4 || len(got.Questions[0].Options) != 4 || len(c.Arguments) > 4<<10 {
		t.Fatalf("kept %d questions, %d options, %d bytes", len(got.Questions), len(got.Questions[0].Options), len(c.Arguments))
	}
	if q0 := got.Questions[0].Question; !strings.Contains(q0, "bytes more]") || !strings.HasSuffix(q0, "[cut: 1 more options]") {
		t.Fatalf("first question %q", q0[len(q0)-120:])
	}
	if q3 := got.Questions[3].Question; !strings.HasSuffix(q3, "[cut: 1 more questions]") {
		t.Fatalf("last question %q", q3)
	}
	bad := AdmitCall(llm.ToolCall{ID: "2", Name: "askUser", Arguments: json.RawMessage(`{"q":"` + strings.Repeat("q", 20<<10) + `"}`)}, lim, 0, 0)
	if !strings.Contains(bad.Cut, "too large") || len(bad.Arguments) > 5<<10 {
		t.Fatalf("askUser not in its shape: %q, %d bytes", bad.Cut, len(bad.Arguments))
	}
}
