package anthropic

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/rtcagent/rtcagent/internal/llm"
	"github.com/rtcagent/rtcagent/internal/testkit/llmfake"
)

// FuzzStreamBytes feeds arbitrary bytes as the SSE body of a streamed message:
// the decoder returns a categorised *llm.Error or output no larger than the body
// (the "{}" of a tool without input aside).
func FuzzStreamBytes(f *testing.F) {
	for _, seed := range seedBodies() {
		f.Add([]byte(seed))
	}
	s := llmfake.NewBodyServer(f, open)
	f.Fuzz(func(t *testing.T, body []byte) {
		llmfake.CheckOutput(t, body, s.Stream(t, body), len("{}"))
	})
}

// FuzzStreamEvents puts fuzzed strings into a well-formed event sequence: text in
// two deltas and a tool_use block whose input comes in two fragments. The text
// and the arguments must come out exactly as sent.
func FuzzStreamEvents(f *testing.F) {
	f.Add("Hel", "lo", "t1", "ls", `{"pa`, `th":"/"}`)
	f.Add("", "", "", "", "", "")
	f.Add("é\u2028", "\x00\"\\", "id 2", "x y", "{", "\"\n")
	s := llmfake.NewBodyServer(f, open)
	f.Fuzz(func(t *testing.T, t1, t2, id, name, a1, a2 string) {
		if !llmfake.ValidText(t1, t2, id, name, a1, a2) {
			return
		}
		var b strings.Builder
		ev := func(name string, v map[string]any) {
			v["type"] = name
			data, _ := json.Marshal(v)
			b.WriteString(llmfake.Events(name, string(data)))
		}
		ev("message_start", map[string]any{"message": map[string]any{"id": "msg_1", "type": "message", "role": "assistant",
			"model": "m", "content": []any{}, "usage": map[string]any{"input_tokens": 3, "output_tokens": 1}}})
		ev("content_block_start", map[string]any{"index": 0, "content_block": map[string]any{"type": "text", "text": ""}})
		ev("content_block_delta", map[string]any{"index": 0, "delta": map[string]any{"type": "text_delta", "text": t1}})
		ev("content_block_delta", map[string]any{"index": 0, "delta": map[string]any{"type": "text_delta", "text": t2}})
		ev("content_block_stop", map[string]any{"index": 0})
		ev("content_block_start", map[string]any{"index": 1, "content_block": map[string]any{"type": "tool_use", "id": id, "name": name, "input": map[string]any{}}})
		ev("content_block_delta", map[string]any{"index": 1, "delta": map[string]any{"type": "input_json_delta", "partial_json": a1}})
		ev("content_block_delta", map[string]any{"index": 1, "delta": map[string]any{"type": "input_json_delta", "partial_json": a2}})
		ev("content_block_stop", map[string]any{"index": 1})
		ev("message_delta", map[string]any{"delta": map[string]any{"stop_reason": "tool_use"}, "usage": map[string]any{"output_tokens": 4}})
		ev("message_stop", map[string]any{})
		r := s.Stream(t, []byte(b.String()))
		if r.Err != nil {
			t.Fatalf("well-formed stream failed: %v", r.Err)
		}
		if r.Text != t1+t2 {
			t.Fatalf("text %q, want %q", r.Text, t1+t2)
		}
		args := a1 + a2
		if args == "" {
			args = "{}" // a tool without input streams no delta
		}
		if len(r.ToolCalls) != 1 || r.ToolCalls[0].ID != id || r.ToolCalls[0].Name != name || string(r.ToolCalls[0].Arguments) != args {
			t.Fatalf("tool calls %+v, want one %q %q %q", r.ToolCalls, id, name, args)
		}
		if want := (llm.Usage{InputTokens: 3, OutputTokens: 4}); r.Usage != want {
			t.Fatalf("usage %+v", r.Usage)
		}
	})
}

// seedBodies are wire shapes of the API: text, tool use with and without input
// deltas, an error event, a cut stream and odd framing.
func seedBodies() []string {
	e := llmfake.Events
	start := `{"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","model":"m","content":[],"usage":{"input_tokens":10,"output_tokens":1}}}`
	return []string{
		e("message_start", start,
			"content_block_start", `{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`,
			"content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hi"}}`,
			"ping", `{"type":"ping"}`,
			"content_block_stop", `{"type":"content_block_stop","index":0}`,
			"message_delta", `{"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":2}}`,
			"message_stop", `{"type":"message_stop"}`),
		e("message_start", start,
			"content_block_start", `{"type":"content_block_start","index":1,"content_block":{"type":"tool_use","id":"t1","name":"ls","input":{"path":"/"}}}`,
			"content_block_stop", `{"type":"content_block_stop","index":1}`,
			"content_block_start", `{"type":"content_block_start","index":2,"content_block":{"type":"tool_use","id":"t2","name":"read","input":{}}}`,
			"content_block_delta", `{"type":"content_block_delta","index":2,"delta":{"type":"input_json_delta","partial_json":"{\"path\":"}}`,
			"content_block_delta", `{"type":"content_block_delta","index":2,"delta":{"type":"input_json_delta","partial_json":" \"/a\"}"}}`,
			"content_block_stop", `{"type":"content_block_stop","index":2}`,
			"message_stop", `{"type":"message_stop"}`),
		e("message_start", start, "error", `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`),
		e("message_start", start,
			"content_block_start", `{"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"t1","name":"ls","input":{}}}`),
		"event: message_stop\r\ndata: {\"type\":\"message_stop\"}\r\n\r\n",
		"event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":-1,\"delta\":{\"type\":\"input_json_delta\"}}\n\n",
		"data: {not json\n\n",
		"",
	}
}
