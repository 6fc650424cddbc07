package e2e

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rtcagent/rtcagent/internal/config"

	"github.com/rtcagent/rtcagent/internal/llm/scripted"
	"github.com/rtcagent/rtcagent/internal/protocol"
	"github.com/rtcagent/rtcagent/internal/testkit/testserver"
)

const aguiScript = `{"name": "ag-ui", "turns": [{"match": "(?i)weather", "steps": [
  {"text": "Let me check.", "tool_calls": [{"name": "get_weather", "arguments": {"city": "Paris"}}]},
  {"chunks": ["It is ", "{{last_result}}", " in Paris."]}
]}]}`

var aguiTools = []map[string]any{{"name": "get_weather", "description": "The weather of a city",
	"parameters": map[string]any{"type": "object", "properties": map[string]any{"city": map[string]any{"type": "string"}}}}}

// aguiEvent is one AG-UI event as a test reads it.
type aguiEvent struct {
	Type       string `json:"type"`
	Delta      string `json:"delta"`
	ToolCallID string `json:"toolCallId"`
	Content    string `json:"content"`
	Outcome    *struct {
		Type       string   `json:"type"`
		Pending    []string `json:"pendingToolCallIds"`
		Interrupts []struct {
			ID             string          `json:"id"`
			Reason         string          `json:"reason"`
			Message        string          `json:"message"`
			ToolCallID     string          `json:"toolCallId"`
			ResponseSchema json.RawMessage `json:"responseSchema"`
		} `json:"interrupts"`
	} `json:"outcome"`
}

// aguiRun posts one run to base/ag-ui and returns its events, up to its end.
func aguiRun(t *testing.T, base, token string, in map[string]any) []aguiEvent {
	t.Helper()
	body, _ := json.Marshal(in)
	req, _ := http.NewRequest(http.MethodPost, base+"/ag-ui", bytes.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/json")
	resp, err := (&http.Client{Timeout: 30 * time.Second}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("ag-ui: status %d", resp.StatusCode)
	}
	var events []aguiEvent
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		data, ok := strings.CutPrefix(sc.Text(), "data: ")
		if !ok {
			continue
		}
		var e aguiEvent
		if err := json.Unmarshal([]byte(data), &e); err != nil {
			t.Fatal(err)
		}
		events = append(events, e)
		if e.Type == "RUN_FINISHED" || e.Type == "RUN_ERROR" {
			return events
		}
	}
	t.Fatalf("ag-ui: the stream ended without the run's end (%v): %+v", sc.Err(), events)
	return nil
}

// aguiWeather runs the weather turn: the first run on first ends with the
// client's call pending, the second, on second, carries its result and returns
// the answer's text and the call's id.
func aguiWeather(t *testing.T, first, second, token, thread string) (string, string) {
	t.Helper()
	user := map[string]any{"id": "m1", "role": "user", "content": "What is the weather?"}
	ev := aguiRun(t, first, token, map[string]any{"threadId": thread, "runId": "r1", "messages": []any{user}, "tools": aguiTools})
	end := ev[len(ev)-1]
	if end.Outcome == nil || len(end.Outcome.Pending) != 1 {
		t.Fatalf("run 1: want one pending call: %+v", ev)
	}
	id := end.Outcome.Pending[0]
	ev = aguiRun(t, second, token, map[string]any{"threadId": thread, "runId": "r2", "messages": []any{user,
		map[string]any{"id": "a1", "role": "assistant", "toolCalls": []any{map[string]any{"id": id, "type": "function",
			"function": map[string]any{"name": "get_weather", "arguments": "{}"}}}},
		map[string]any{"id": "t1", "role": "tool", "toolCallId": id, "content": "sunny"}}})
	var text strings.Builder
	for _, e := range ev {
		if e.Type == "TEXT_MESSAGE_CONTENT" {
			text.WriteString(e.Delta)
		}
	}
	if end := ev[len(ev)-1]; end.Type != "RUN_FINISHED" || end.Outcome.Type != "success" || len(end.Outcome.Pending) != 0 {
		t.Fatalf("run 2: %+v", ev)
	}
	return text.String(), id
}

// TestAGUIFrontendTool: an AG-UI client's tool is an RTC it answers in its
// next run; the answer streams from the Live channel; the same result sent
// again changes nothing.
func TestAGUIFrontendTool(t *testing.T) {
	m, err := scripted.Parse([]byte(aguiScript))
	if err != nil {
		t.Fatal(err)
	}
	s := testserver.Start(t, m, testserver.Options{})
	tok := s.Token(t, "u", time.Hour)
	text, id := aguiWeather(t, s.HTTP.URL, s.HTTP.URL, tok, "thread")
	if text != "It is sunny in Paris." {
		t.Fatalf("answer %q", text)
	}
	// A second client sends the result again, with another text: the run
	// finds the thread idle and the call's result as it was.
	again := aguiRun(t, s.HTTP.URL, tok, map[string]any{"threadId": "thread", "runId": "r3", "messages": []any{
		map[string]any{"id": "t2", "role": "tool", "toolCallId": id, "content": "rainy"}}})
	if end := again[len(again)-1]; end.Type != "RUN_FINISHED" {
		t.Fatalf("run 3: %+v", again)
	}
	var rtc protocol.RTCResult
	s.RPC(t, "u", "ag-ui", protocol.MethodRTCGet, protocol.IDRequest{RTCID: id}, &rtc)
	if string(rtc.RTC.Output) != `"sunny"` {
		t.Fatalf("output %s", rtc.RTC.Output)
	}
}

// TestAGUIClusterRuns: the two runs of a frontend tool call go to different
// nodes of a cluster; the second follows the turn wherever it runs (its feed
// is the node's Centrifuge subscription, fed through Redis).
func TestAGUIClusterRuns(t *testing.T) {
	c := startCluster(t, 2, aguiScript)
	tok, _, err := c.nodes[0].verifier().Issue("u", time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	for i, thread := range []string{"a", "b", "c"} {
		first, second := "http://"+c.nodes[i%2].addr, "http://"+c.nodes[(i+1)%2].addr
		if text, _ := aguiWeather(t, first, second, tok, thread); text != "It is sunny in Paris." {
			t.Fatalf("thread %s: answer %q", thread, text)
		}
	}
}

// TestAGUIInterrupts: an MCP call that needs the person's approval, then the
// question its server asks, end AG-UI runs with interrupts; the resume
// entries of the next runs approve the call and answer the question, and the
// turn completes with the call's result.
func TestAGUIInterrupts(t *testing.T) {
	srv := startServer(t, mustScript(t, elicitScript), func(c *config.Config) {
		c.MCPConfig = mcpConfig(t, filepath.Join(t.TempDir(), "calls"), "")
	})
	tok := srv.Token(t, "u", time.Hour)
	user := map[string]any{"id": "m1", "role": "user", "content": "ask me"}
	run := func(runID string, resume ...map[string]any) []aguiEvent {
		in := map[string]any{"threadId": "thread", "runId": runID, "messages": []any{user}}
		if len(resume) > 0 {
			in["resume"] = resume
		}
		return aguiRun(t, srv.HTTP.URL, tok, in)
	}
	interrupt := func(ev []aguiEvent, reason string) (id string) {
		t.Helper()
		end := ev[len(ev)-1]
		if end.Outcome == nil || end.Outcome.Type != "interrupt" || len(end.Outcome.Interrupts) != 1 || end.Outcome.Interrupts[0].Reason != reason {
			t.Fatalf("want a %s interrupt: %+v", reason, ev)
		}
		return end.Outcome.Interrupts[0].ID
	}

	ev := run("r1")
	approve := interrupt(ev, "tool_approval")
	if end := ev[len(ev)-1].Outcome.Interrupts[0]; end.ToolCallID != approve || ev[1].Type != "STEP_STARTED" {
		t.Fatalf("the approval names its tool call: %+v", ev)
	}
	ev = run("r2", map[string]any{"interruptId": approve, "status": "resolved", "payload": map[string]any{"approved": true}})
	ask := interrupt(ev, "input_required")
	q := ev[len(ev)-1].Outcome.Interrupts[0]
	if q.Message != "Which colour?" || !strings.Contains(string(q.ResponseSchema), `"answer"`) {
		t.Fatalf("question %+v", q)
	}
	ev = run("r3", map[string]any{"interruptId": ask, "status": "resolved", "payload": map[string]any{"answer": "deep blue"}})
	var result, text string
	for _, e := range ev {
		switch e.Type {
		case "TOOL_CALL_RESULT":
			result = e.Content
		case "TEXT_MESSAGE_CONTENT":
			text += e.Delta
		}
	}
	if end := ev[len(ev)-1]; end.Type != "RUN_FINISHED" || end.Outcome.Type != "success" ||
		result != `accept {"answer":"deep blue"}` || !strings.Contains(text, "deep blue") {
		t.Fatalf("run 3: result %q text %q: %+v", result, text, ev)
	}
	// The answer sent again (a second tab) changes nothing.
	if ev := run("r4", map[string]any{"interruptId": ask, "status": "cancelled"}); ev[len(ev)-1].Type != "RUN_FINISHED" {
		t.Fatalf("run 4: %+v", ev)
	}
}

// TestAGUISamplingInterrupt: an MCP server's request to use the model is an
// approval interrupt of its own (no tool call of the conversation); once
// approved, the server's model answers it and the turn completes.
func TestAGUISamplingInterrupt(t *testing.T) {
	srv := startServer(t, mustScript(t, sampleScript), func(c *config.Config) {
		c.MCPConfig = mcpConfig(t, filepath.Join(t.TempDir(), "calls"), "")
	})
	tok := srv.Token(t, "u", time.Hour)
	user := map[string]any{"id": "m1", "role": "user", "content": "sample please"}
	in := map[string]any{"threadId": "thread", "messages": []any{user}}
	var text string
	for i := 0; i < 3; i++ {
		in["runId"] = fmt.Sprint("r", i)
		ev := aguiRun(t, srv.HTTP.URL, tok, in)
		end := ev[len(ev)-1]
		if i == 2 {
			for _, e := range ev {
				if e.Type == "TEXT_MESSAGE_CONTENT" {
					text += e.Delta
				}
			}
			if end.Type != "RUN_FINISHED" || end.Outcome.Type != "success" {
				t.Fatalf("run %d: %+v", i, ev)
			}
			break
		}
		if end.Outcome == nil || len(end.Outcome.Interrupts) != 1 || end.Outcome.Interrupts[0].Reason != "tool_approval" {
			t.Fatalf("run %d: want an approval: %+v", i, ev)
		}
		q := end.Outcome.Interrupts[0]
		if sampling := i == 1; sampling != (q.ToolCallID == "") || sampling && !strings.Contains(q.Message, `"test" asks to use the model`) {
			t.Fatalf("run %d: interrupt %+v", i, q)
		}
		in["resume"] = []any{map[string]any{"interruptId": q.ID, "status": "resolved", "payload": map[string]any{"approved": true}}}
	}
	if !strings.Contains(text, "green tests at dawn") {
		t.Fatalf("answer %q", text)
	}
}

// TestAGUIBadInput: what a careless client or an attacker sends to /ag-ui is
// answered before any stream with the API's error and status, and changes
// nothing.
func TestAGUIBadInput(t *testing.T) {
	s := testserver.Start(t, mustScript(t, aguiScript), testserver.Options{})
	tok := s.Token(t, "u", time.Hour)
	user := map[string]any{"id": "m1", "role": "user", "content": "What is the weather?"}
	run := func(in map[string]any) map[string]any {
		in["threadId"], in["runId"] = "t", "r"
		return in
	}
	cases := []struct {
		name, token, device, body string
		code                      string
	}{
		{"no token", "", "", `{}`, protocol.CodeUnauthenticated},
		{"a forged token", "e30.e30.e30", "", `{}`, protocol.CodeUnauthenticated},
		{"not JSON", tok, "", `{"threadId":`, protocol.CodeInvalidArgument},
		{"no run id", tok, "", `{"threadId":"t","messages":[]}`, protocol.CodeInvalidArgument},
		{"a bad device", tok, "d\u202e", string(jsonOf(run(map[string]any{"messages": []any{user}}))), protocol.CodeInvalidArgument},
		{"an image", tok, "", string(jsonOf(run(map[string]any{"messages": []any{map[string]any{"id": "m", "role": "user",
			"content": []any{map[string]any{"type": "image", "source": map[string]any{"type": "url", "value": "https://x.test/a.png"}}}}}}))), protocol.CodeInvalidArgument},
		{"a tool named like an MCP tool", tok, "", string(jsonOf(run(map[string]any{"messages": []any{user},
			"tools": []any{map[string]any{"name": "srv__steal", "description": "x"}}}))), protocol.CodeInvalidArgument},
		{"too large", tok, "", `{"threadId":"t","runId":"r","messages":[{"id":"m","role":"user","content":"` + strings.Repeat("x", 2<<20) + `"}]}`, protocol.CodeTooLarge},
	}
	for _, c := range cases {
		req, _ := http.NewRequest(http.MethodPost, s.HTTP.URL+"/ag-ui", strings.NewReader(c.body))
		if c.token != "" {
			req.Header.Set("Authorization", "Bearer "+c.token)
		}
		if c.device != "" {
			req.Header.Set("X-Device-Id", c.device)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		var body struct{ Error protocol.Error }
		_ = json.NewDecoder(resp.Body).Decode(&body)
		resp.Body.Close()
		if resp.StatusCode != protocol.HTTPStatus(c.code) || body.Error.Code != c.code || body.Error.Message == "" {
			t.Errorf("%s: %d %+v, want %s", c.name, resp.StatusCode, body.Error, c.code)
		}
	}
	var list protocol.SessionListResult
	s.RPC(t, "u", "ag-ui", protocol.MethodSessionList, struct{}{}, &list)
	if len(list.Sessions) != 0 {
		t.Fatalf("bad input made %d sessions", len(list.Sessions))
	}
}
