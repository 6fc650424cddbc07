package bench

import (
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/rtcagent/rtcagent/internal/llm"
)

// TestHistoryRow runs row 6 at tiny sizes and checks what must hold whatever
// the machine: both sides sent bytes and timed every call, the stateless
// client's bytes per call grow with the conversation, and RTC Agent's do not.
func TestHistoryRow(t *testing.T) {
	o := Options{Calls: 3, Tool: "ls", History: []int{60, 10}}
	logf := func(f string, a ...any) { t.Logf(f, a...) }
	hs, err := measureHistory(context.Background(), o, t.TempDir(), "histtest", logf)
	if err != nil {
		t.Fatal(err)
	}
	if len(hs) != 2 || hs[0].Target != 10 || hs[1].Target != 60 {
		t.Fatalf("points %+v", hs)
	}
	for _, h := range hs {
		if h.Messages < h.Target || h.Calls != 3 {
			t.Errorf("point %+v", h)
		}
		for name, s := range map[string]PerCall{"RTC Agent": h.Ours, "stateless": h.Stateless} {
			if s.Bytes <= 0 || s.RTT.N != 3 || s.RTT.P50 <= 0 {
				t.Errorf("%d messages, %s: %+v", h.Target, name, s)
			}
		}
	}
	small, big := hs[0], hs[1]
	if big.Stateless.Bytes <= small.Stateless.Bytes {
		t.Errorf("stateless bytes per call %.0f at %d messages, %.0f at %d", small.Stateless.Bytes, small.Messages, big.Stateless.Bytes, big.Messages)
	}
	if big.Ours.Bytes > 1.5*small.Ours.Bytes {
		t.Errorf("RTC Agent bytes per call grew from %.0f to %.0f", small.Ours.Bytes, big.Ours.Bytes)
	}
	if big.Stateless.Bytes <= big.Ours.Bytes {
		t.Errorf("at %d messages the stateless client sent %.0f B per call, RTC Agent %.0f B", big.Messages, big.Stateless.Bytes, big.Ours.Bytes)
	}
	for _, line := range strings.Split((&Result{History: hs}).Table(), "\n") {
		if strings.HasPrefix(line, "| 6 |") {
			t.Log(line)
		}
	}
}

// TestUIMessagesRoundTrip: the baseline starts from the RTC Agent transcript
// converted to UI messages; after the trip through JSON and back the model must
// see exactly the same transcript.
func TestUIMessagesRoundTrip(t *testing.T) {
	in := []llm.Message{
		{Role: llm.RoleUser, Text: "list twice"},
		{Role: llm.RoleAssistant, Text: "Looking.", ToolCalls: []llm.ToolCall{{ID: "c1", Name: "ls", Arguments: []byte(`{}`)}, {ID: "c2", Name: "ls", Arguments: []byte(`{"path":"/a"}`)}}},
		{Role: llm.RoleTool, ToolCallID: "c1", Text: "a.txt"},
		{Role: llm.RoleTool, ToolCallID: "c2", Text: "[Tool Error] no such directory"},
		{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{{ID: "c3", Name: "read", Arguments: []byte(`{"path":"/a.txt"}`)}}},
		{Role: llm.RoleTool, ToolCallID: "c3", Text: `{"json":"as text"}`},
		{Role: llm.RoleAssistant, Text: "Done."},
		{Role: llm.RoleUser, Text: "again"},
		{Role: llm.RoleAssistant, Text: "Sure."},
	}
	b, err := json.Marshal(chatRequest{ID: "chat", Messages: fromModel(in), Trigger: "submit-message"})
	if err != nil {
		t.Fatal(err)
	}
	var req chatRequest
	if err := json.Unmarshal(b, &req); err != nil {
		t.Fatal(err)
	}
	if len(req.Messages) != 4 {
		t.Fatalf("%d UI messages, want 4 (user, assistant, user, assistant)", len(req.Messages))
	}
	out, err := toModel(req.Messages)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(in, out) {
		t.Fatalf("round trip changed the transcript:\n in %+v\nout %+v", in, out)
	}
}
