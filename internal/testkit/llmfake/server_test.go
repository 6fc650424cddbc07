package llmfake

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/rtcagent/rtcagent/internal/llm"
	"github.com/rtcagent/rtcagent/internal/llm/scripted"
)

const wireScript = `{"name": "wire", "turns": [{"steps": [
  {"chunks": ["Hi ", "there"], "tool_calls": [{"name": "write", "arguments": {"path": "/a.txt", "content": "héllo"}}]}
]}]}`

func post(t *testing.T, url, body string) (*http.Response, string) {
	t.Helper()
	resp, err := http.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, string(data)
}

// dataLines returns the data payloads of an SSE body.
func dataLines(body string) []string {
	var out []string
	for _, line := range strings.Split(body, "\n") {
		if d, ok := strings.CutPrefix(line, "data: "); ok {
			out = append(out, d)
		}
	}
	return out
}

func brain(t *testing.T, script string) *scripted.Model {
	t.Helper()
	m, err := scripted.Parse([]byte(script))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestOpenAIWire(t *testing.T) {
	srv := NewOpenAI(brain(t, wireScript))
	defer srv.Close()
	body := `{"model": "m", "stream": true, "stream_options": {"include_usage": true}, "messages": [{"role": "user", "content": "x"}]}`
	resp, out := post(t, srv.URL()+"/chat/completions", body)
	if resp.StatusCode != 200 || resp.Header.Get("x-request-id") != "req_fake_1" || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		t.Fatalf("status %d, headers %v", resp.StatusCode, resp.Header)
	}
	lines := dataLines(out)
	if lines[len(lines)-1] != "[DONE]" {
		t.Fatalf("last data %q", lines[len(lines)-1])
	}
	var args string
	fragments, finish := 0, ""
	var usage *llm.Usage
	for _, l := range lines[:len(lines)-1] {
		var c struct {
			Object  string `json:"object"`
			Choices []struct {
				Delta struct {
					ToolCalls []struct {
						Function struct{ Arguments string } `json:"function"`
					} `json:"tool_calls"`
				} `json:"delta"`
				FinishReason *string `json:"finish_reason"`
			} `json:"choices"`
			Usage *struct {
				Prompt     int64 `json:"prompt_tokens"`
				Completion int64 `json:"completion_tokens"`
			} `json:"usage"`
		}
		if err := json.Unmarshal([]byte(l), &c); err != nil || c.Object != "chat.completion.chunk" {
			t.Fatalf("chunk %s: %v", l, err)
		}
		for _, ch := range c.Choices {
			for _, tc := range ch.Delta.ToolCalls {
				if tc.Function.Arguments != "" {
					fragments++
					args += tc.Function.Arguments
				}
			}
			if ch.FinishReason != nil {
				finish = *ch.FinishReason
			}
		}
		if c.Usage != nil {
			usage = &llm.Usage{InputTokens: c.Usage.Prompt, OutputTokens: c.Usage.Completion}
		}
	}
	if args != `{"path":"/a.txt","content":"héllo"}` || fragments < 2 || finish != "tool_calls" {
		t.Fatalf("arguments %q in %d fragments, finish %q", args, fragments, finish)
	}
	if usage == nil || *usage != srv.Usage() || usage.InputTokens == 0 {
		t.Fatalf("usage chunk %v, server total %v", usage, srv.Usage())
	}

	// Without include_usage there is no usage chunk and nothing is counted.
	_, out = post(t, srv.URL()+"/chat/completions", `{"model": "m", "stream": true, "messages": [{"role": "user", "content": "x"}]}`)
	if strings.Contains(out, "prompt_tokens") || srv.Usage() != *usage {
		t.Fatalf("usage without include_usage: %s", out)
	}
}

func TestAnthropicWire(t *testing.T) {
	srv := NewAnthropic(brain(t, wireScript))
	defer srv.Close()
	body := `{"model": "m", "max_tokens": 100, "stream": true, "messages": [{"role": "user", "content": "x"}]}`
	resp, out := post(t, srv.URL()+"/v1/messages", body)
	if resp.StatusCode != 200 || resp.Header.Get("request-id") != "req_fake_1" {
		t.Fatalf("status %d, headers %v", resp.StatusCode, resp.Header)
	}
	var names []string
	for _, line := range strings.Split(out, "\n") {
		if n, ok := strings.CutPrefix(line, "event: "); ok && (len(names) == 0 || names[len(names)-1] != n) {
			names = append(names, n)
		}
	}
	want := "message_start ping content_block_start content_block_delta content_block_stop content_block_start content_block_delta content_block_stop message_delta message_stop"
	if strings.Join(names, " ") != want {
		t.Fatalf("events %v", names)
	}
	var args string
	fragments := 0
	for _, l := range dataLines(out) {
		var e struct {
			Delta struct {
				Type        string `json:"type"`
				PartialJSON string `json:"partial_json"`
			} `json:"delta"`
		}
		if err := json.Unmarshal([]byte(l), &e); err != nil {
			t.Fatalf("event data %s: %v", l, err)
		}
		if e.Delta.Type == "input_json_delta" {
			fragments++
			args += e.Delta.PartialJSON
		}
	}
	if args != `{"path":"/a.txt","content":"héllo"}` || fragments < 2 || !strings.Contains(out, `"stop_reason":"tool_use"`) {
		t.Fatalf("arguments %q in %d fragments", args, fragments)
	}
}

func TestFailNextAndErrors(t *testing.T) {
	oa := NewOpenAI(brain(t, wireScript))
	defer oa.Close()
	an := NewAnthropic(brain(t, wireScript))
	defer an.Close()
	oaBody := `{"model": "m", "stream": true, "messages": [{"role": "user", "content": "x"}]}`
	anBody := `{"model": "m", "max_tokens": 10, "stream": true, "messages": [{"role": "user", "content": "x"}]}`

	oa.FailNext(2, 429)
	for range 2 {
		resp, out := post(t, oa.URL()+"/chat/completions", oaBody)
		if resp.StatusCode != 429 || !strings.Contains(out, `"code":"rate_limit_exceeded"`) {
			t.Fatalf("%d %s", resp.StatusCode, out)
		}
	}
	if resp, _ := post(t, oa.URL()+"/chat/completions", oaBody); resp.StatusCode != 200 {
		t.Fatalf("third request: %d", resp.StatusCode)
	}
	an.FailNextWithMessage(1, 529, "Overloaded")
	resp, out := post(t, an.URL()+"/v1/messages", anBody)
	if resp.StatusCode != 529 || !strings.Contains(out, `"type":"overloaded_error"`) || !strings.Contains(out, "Overloaded") {
		t.Fatalf("%d %s", resp.StatusCode, out)
	}

	bad := []struct {
		srv        *Server
		path, body string
		status     int
	}{
		{oa, "/chat/completions", `{"model": "m", "messages": []}`, 400}, // not streaming
		{oa, "/completions", oaBody, 404},                                // no route
		{oa, "/chat/completions", `{"stream": true, "messages": [{"role": "tool", "tool_call_id": "x", "content": ""}]}`, 400}, // orphan result
		{an, "/v1/messages", `{"model": "m", "stream": true, "messages": []}`, 400},                                            // no max_tokens
		{an, "/v1/messages", `{"max_tokens": 1, "stream": true, "messages": [{"role": "assistant", "content": "a"}]}`, 400},    // starts with assistant
		{an, "/v1/messages", `{"max_tokens": 1, "stream": true, "messages": [{"role": "user", "content": [{"type": "text", "text": ""}]}]}`, 400},
	}
	for _, b := range bad {
		if resp, out := post(t, b.srv.URL()+b.path, b.body); resp.StatusCode != b.status {
			t.Errorf("%s %s: status %d, want %d (%s)", b.path, b.body, resp.StatusCode, b.status, out)
		}
	}
	if n := len(oa.Requests()); n != 6 {
		t.Fatalf("OpenAI fake recorded %d requests, want 6", n)
	}
}

// failingBrain fails before streaming, as a provider rejecting a request would.
type failingBrain struct{ err error }

func (failingBrain) Name() string { return "failing" }
func (b failingBrain) Stream(context.Context, *llm.Request) (llm.Stream, error) {
	return nil, b.err
}

func TestBrainErrorBecomesStatus(t *testing.T) {
	srv := NewAnthropic(failingBrain{&llm.Error{Category: "rate_limited", Err: errors.New("busy")}})
	defer srv.Close()
	resp, out := post(t, srv.URL()+"/v1/messages", `{"max_tokens": 1, "stream": true, "messages": [{"role": "user", "content": "x"}]}`)
	if resp.StatusCode != 429 || !strings.Contains(out, "busy") {
		t.Fatalf("%d %s", resp.StatusCode, out)
	}
}

func TestFragments(t *testing.T) {
	for _, s := range []string{"", "a", "ab", `{"k":"ünïcödé ✓ and a longer tail to split"}`} {
		parts := fragments(s)
		if strings.Join(parts, "") != s {
			t.Errorf("fragments(%q) = %q", s, parts)
		}
		if len([]rune(s)) >= 2 && len(parts) < 2 {
			t.Errorf("fragments(%q) = %q, want at least two", s, parts)
		}
		for _, p := range parts {
			if !utf8.ValidString(p) {
				t.Errorf("fragment %q splits a rune", p)
			}
		}
	}
}
