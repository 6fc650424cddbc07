package lifecycle

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/rtcagent/rtcagent/internal/agent"
	"github.com/rtcagent/rtcagent/internal/llm"
	"github.com/rtcagent/rtcagent/internal/protocol"
	"github.com/rtcagent/rtcagent/internal/tools"
)

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

// PlanRTCs fails a call AdmitCall cut with the reason it gave, without looking
// at the kept prefix.
func TestPlanFailsCutCalls(t *testing.T) {
	lim := protocol.Limits{ToolArgsBytes: 1000, StepArgsBytes: 1500}.WithDefaults()
	args := func(n int) json.RawMessage {
		return json.RawMessage(`{"path":"/a","content":"` + strings.Repeat("x", n) + `"}`)
	}
	ok := agent.AdmitCall(llm.ToolCall{ID: "1", Name: "write", Arguments: args(800)}, lim, 0, 0)
	big := agent.AdmitCall(llm.ToolCall{ID: "2", Name: "write", Arguments: args(5000)}, lim, 0, 0)
	step := agent.AdmitCall(llm.ToolCall{ID: "3", Name: "write", Arguments: args(800)}, lim, len(ok.Arguments), 0)
	rtcs := PlanRTCs(PlanInput{Calls: []llm.ToolCall{ok, big, step}, Tools: tools.NewSet(nil), WorkMode: protocol.ModeBypass,
		Limits: lim, NewID: func() string { return "r" }})
	if rtcs[0].Status != protocol.RTCQueued || rtcs[1].Status != protocol.RTCFailed || rtcs[1].Error != big.Cut || rtcs[2].Error != step.Cut {
		t.Fatalf("planned: %s %s %q %q", rtcs[0].Status, rtcs[1].Status, rtcs[1].Error, rtcs[2].Error)
	}
}
