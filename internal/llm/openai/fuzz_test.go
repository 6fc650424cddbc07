package openai

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/rtcagent/rtcagent/internal/llm"
	"github.com/rtcagent/rtcagent/internal/testkit/llmfake"
)

// checkResult holds for any body: an error is a categorised *llm.Error, the
// output never holds more text or arguments than the body carried, and every
// tool call has an id.
func checkResult(t *testing.T, body []byte, r llmfake.Result) {
	t.Helper()
	llmfake.CheckOutput(t, body, r, 0)
	for _, tc := range r.ToolCalls {
		if r.Err == nil && tc.ID == "" {
			t.Fatalf("tool call %q without an id", tc.Name)
		}
	}
}

// FuzzStreamBytes feeds arbitrary bytes as the SSE body of a streamed completion.
func FuzzStreamBytes(f *testing.F) {
	for _, seed := range seedBodies() {
		f.Add([]byte(seed))
	}
	s := llmfake.NewBodyServer(f, open)
	f.Fuzz(func(t *testing.T, body []byte) {
		checkResult(t, body, s.Stream(t, body))
	})
}

// FuzzStreamChunks puts fuzzed strings into well-formed chunks: text split in
// two deltas and a tool call whose arguments come in two fragments. The text and
// the arguments must come out exactly as sent.
func FuzzStreamChunks(f *testing.F) {
	f.Add("Hel", "lo", "ls", `{"pa`, `th":"/"}`, true)
	f.Add("", "", "read", "", "", false)
	f.Add("é\u2028", "\x00\"\\", "x y", "{", "\"\n", true)
	s := llmfake.NewBodyServer(f, open)
	f.Fuzz(func(t *testing.T, t1, t2, name, a1, a2 string, usage bool) {
		if !llmfake.ValidText(t1, t2, name, a1, a2) {
			return
		}
		chunk := func(delta map[string]any, finish string) string {
			ch := map[string]any{"index": 0, "delta": delta}
			if finish != "" {
				ch["finish_reason"] = finish
			}
			b, _ := json.Marshal(map[string]any{"id": "c1", "object": "chat.completion.chunk", "choices": []any{ch}})
			return "data: " + string(b) + "\n\n"
		}
		call := func(id, name, args string) map[string]any {
			fn := map[string]any{"arguments": args}
			if name != "" {
				fn["name"] = name
			}
			tc := map[string]any{"index": 0, "type": "function", "function": fn}
			if id != "" {
				tc["id"] = id
			}
			return map[string]any{"tool_calls": []any{tc}}
		}
		var b strings.Builder
		b.WriteString(chunk(map[string]any{"role": "assistant", "content": t1}, ""))
		b.WriteString(chunk(map[string]any{"content": t2}, ""))
		b.WriteString(chunk(call("call_a", name, a1), ""))
		b.WriteString(chunk(call("", "", a2), ""))
		b.WriteString(chunk(map[string]any{}, "tool_calls"))
		if usage {
			b.WriteString(`data: {"id":"c1","object":"chat.completion.chunk","choices":[],"usage":{"prompt_tokens":3,"completion_tokens":4,"total_tokens":7}}` + "\n\n")
		}
		b.WriteString("data: [DONE]\n\n")
		r := s.Stream(t, []byte(b.String()))
		if r.Err != nil {
			t.Fatalf("well-formed stream failed: %v", r.Err)
		}
		if r.Text != t1+t2 {
			t.Fatalf("text %q, want %q", r.Text, t1+t2)
		}
		if len(r.ToolCalls) != 1 || r.ToolCalls[0].ID != "call_a" || r.ToolCalls[0].Name != name || string(r.ToolCalls[0].Arguments) != a1+a2 {
			t.Fatalf("tool calls %+v, want one call_a %q %q", r.ToolCalls, name, a1+a2)
		}
		if want := (llm.Usage{InputTokens: 3, OutputTokens: 4}); usage && r.Usage != want {
			t.Fatalf("usage %+v", r.Usage)
		}
	})
}

// seedBodies are wire shapes of real servers: text, tool calls, usage, an error
// inside the stream, a cut stream, comments and odd framing.
func seedBodies() []string {
	d := llmfake.Data
	return []string{
		d(`{"id":"c1","choices":[{"index":0,"delta":{"role":"assistant","content":"Hi"}}]}`,
			`{"id":"c1","choices":[{"index":0,"delta":{},"finish_reason":"stop"}],"usage":{"prompt_tokens":1,"completion_tokens":2}}`, `[DONE]`),
		d(`{"id":"c1","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"a","type":"function","function":{"name":"ls","arguments":"{\"pa"}}]}}]}`,
			`{"id":"c1","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"th\":\"/\"}"}}]}}]}`,
			`{"id":"c1","choices":[{"index":0,"delta":{"tool_calls":[{"index":1,"function":{"name":"find","arguments":"{}"}}]}}]}`,
			`{"id":"c1","choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}`, `[DONE]`),
		d(`{"error":{"message":"overloaded","type":"server_error","code":"overloaded"}}`),
		d(`{"id":"c1","choices":[{"index":0,"delta":{"content":"cut"}}]}`),
		": keep-alive\n\nevent: message\ndata: {\"id\":\"c1\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"a\"},\"finish_reason\":\"stop\"}]}\r\n\r\ndata: [DONE]\n\n",
		"data: {not json\n\n",
		"data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\n",
		"",
	}
}
