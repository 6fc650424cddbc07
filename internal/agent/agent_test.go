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
	"github.com/rtcagent/rtcagent/internal/tools"
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

func TestPlanRTCs(t *testing.T) {
	n := 0
	in := PlanInput{
		Calls: []llm.ToolCall{
			{ID: "c1", Name: "read", Arguments: json.RawMessage(`{"path":"/a"}`)},
			{ID: "c2", Name: "write", Arguments: json.RawMessage(`{"path":"/a","content":"x"}`)},
			{ID: "c3", Name: "nope", Arguments: json.RawMessage(`{}`)},
			{ID: "c4", Name: "askUser", Arguments: json.RawMessage(`{"questions":[]}`)},
			{ID: "c5", Name: "read", Arguments: json.RawMessage(`{"path":`)},
		},
		Tools: tools.NewSet(nil), WorkMode: protocol.ModeManual,
		Limits: protocol.Limits{ExecTimeout: time.Minute, HumanTimeout: time.Hour}.WithDefaults(),
		Step:   2, FirstSeq: 3, NewID: func() string { n++; return fmt.Sprint("r", n) },
	}
	rtcs := PlanRTCs(in)
	type row struct {
		status  string
		confirm bool
		timeout int64
	}
	want := []row{
		{protocol.RTCQueued, false, 60000}, {protocol.RTCQueued, true, 3600000}, {protocol.RTCFailed, false, 0},
		{protocol.RTCQueued, false, 3600000}, {protocol.RTCFailed, false, 0},
	}
	for i, r := range rtcs {
		got := row{r.Status, r.NeedsConfirmation, r.TimeoutMS}
		if got != want[i] || r.Seq != 3+i || r.Step != 2 {
			t.Errorf("call %d: %+v seq %d, want %+v", i, got, r.Seq, want[i])
		}
	}
	if !json.Valid(rtcs[4].Arguments) {
		t.Fatal("invalid model arguments not kept as JSON")
	}
	in.WorkMode = protocol.ModePlan
	if r := PlanRTCs(in)[1]; r.Status != protocol.RTCRejected || !strings.Contains(r.Error, "plan mode") {
		t.Fatalf("plan mode write: %+v", r)
	}
	// In edit mode a write runs without asking, except on a protected path.
	in.WorkMode = protocol.ModeEdit
	in.Calls = []llm.ToolCall{
		{ID: "e1", Name: "write", Arguments: json.RawMessage(`{"path":"/notes.md","content":"x"}`)},
		{ID: "e2", Name: "write", Arguments: json.RawMessage(`{"path":"/AGENT.md","content":"x"}`)},
		{ID: "e3", Name: "edit", Arguments: json.RawMessage(`{"path":".scripts/fib.js","old_string":"a","new_string":"b"}`)},
	}
	got := PlanRTCs(in)
	if got[0].NeedsConfirmation || !got[1].NeedsConfirmation || !got[2].NeedsConfirmation || got[1].TimeoutMS != 3600000 {
		t.Fatalf("edit mode: /notes.md %v, /AGENT.md %v (budget %d), /.scripts/fib.js %v; want false, true (the human budget), true",
			got[0].NeedsConfirmation, got[1].NeedsConfirmation, got[1].TimeoutMS, got[2].NeedsConfirmation)
	}
}
