package anthropic

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"reflect"
	"strings"
	"testing"

	"github.com/rtcagent/rtcagent/internal/llm"
	"github.com/rtcagent/rtcagent/internal/testkit/llmfake"
)

// sseServer answers every request with the given events ("name data" pairs),
// for wire shapes the fake does not produce; headers returns what it received.
func sseServer(t *testing.T, events ...[2]string) (url string, headers func() []http.Header) {
	t.Helper()
	var pairs []string
	for _, e := range events {
		pairs = append(pairs, e[0], e[1])
	}
	return llmfake.ServeSSE(t, llmfake.Events(pairs...))
}

func rawStream(t *testing.T, url string) llmfake.Result {
	t.Helper()
	m, err := New(Config{BaseURL: url, APIKey: "sk-ant-test", Model: "m"})
	if err != nil {
		t.Fatal(err)
	}
	return llmfake.Ask(context.Background(), m, "x")
}

var messageStart = [2]string{"message_start", `{"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","model":"m","content":[],"stop_reason":null,"usage":{"input_tokens":10,"cache_creation_input_tokens":5,"cache_read_input_tokens":100,"output_tokens":1}}}`}

func TestStreamShapes(t *testing.T) {
	url, headers := sseServer(t,
		messageStart,
		[2]string{"content_block_start", `{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`},
		[2]string{"content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hi "}}`},
		[2]string{"ping", `{"type":"ping"}`},
		[2]string{"content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"there"}}`},
		[2]string{"content_block_stop", `{"type":"content_block_stop","index":0}`},
		// Input given whole at the start, no deltas (as some proxies do).
		[2]string{"content_block_start", `{"type":"content_block_start","index":1,"content_block":{"type":"tool_use","id":"t1","name":"ls","input":{"path":"/"}}}`},
		[2]string{"content_block_stop", `{"type":"content_block_stop","index":1}`},
		[2]string{"content_block_start", `{"type":"content_block_start","index":2,"content_block":{"type":"tool_use","id":"t2","name":"read","input":{}}}`},
		[2]string{"content_block_delta", `{"type":"content_block_delta","index":2,"delta":{"type":"input_json_delta","partial_json":"{\"path\":"}}`},
		[2]string{"content_block_delta", `{"type":"content_block_delta","index":2,"delta":{"type":"input_json_delta","partial_json":" \"/a\"}"}}`},
		[2]string{"content_block_stop", `{"type":"content_block_stop","index":2}`},
		// Older API versions report only output tokens here.
		[2]string{"message_delta", `{"type":"message_delta","delta":{"stop_reason":"tool_use","stop_sequence":null},"usage":{"output_tokens":42}}`},
		[2]string{"message_stop", `{"type":"message_stop"}`},
	)
	r := rawStream(t, url)
	if r.Err != nil || r.Text != "Hi there" || r.TextEvents != 2 {
		t.Fatalf("err %v, text %q in %d events", r.Err, r.Text, r.TextEvents)
	}
	want := []llm.ToolCall{
		{ID: "t1", Name: "ls", Arguments: []byte(`{"path":"/"}`)},
		{ID: "t2", Name: "read", Arguments: []byte(`{"path": "/a"}`)},
	}
	if !reflect.DeepEqual(r.ToolCalls, want) {
		t.Fatalf("calls %+v", r.ToolCalls)
	}
	if r.Usage != (llm.Usage{InputTokens: 115, OutputTokens: 42}) {
		t.Fatalf("merged usage %+v, want cached input counted and the final output", r.Usage)
	}
	h := headers()[0]
	if !strings.Contains(h.Get("Authorization")+h.Get("X-Api-Key"), "sk-ant-test") || h.Get("Anthropic-Version") == "" {
		t.Fatalf("headers %v", h)
	}
}

func TestMidStreamErrorTypes(t *testing.T) {
	cases := []struct {
		typ, message string
		category     string
		retryable    bool
	}{
		{"overloaded_error", "Overloaded", "provider_unavailable", true},
		{"api_error", "Internal server error", "provider_unavailable", true},
		{"rate_limit_error", "slow down", "rate_limited", true},
		{"invalid_request_error", "prompt is too long: 300000 tokens > 200000 maximum", "context_length", false},
		{"invalid_request_error", "bad block", "invalid_request", false},
		{"authentication_error", "invalid x-api-key", "auth", false},
	}
	for _, c := range cases {
		url, _ := sseServer(t, messageStart,
			[2]string{"error", fmt.Sprintf(`{"type":"error","error":{"type":%q,"message":%q}}`, c.typ, c.message)})
		r := rawStream(t, url)
		var me *llm.Error
		if !errors.As(r.Err, &me) || me.Category != c.category || me.Retryable != c.retryable || me.RequestID != "req_raw" {
			t.Errorf("%s: err = %v", c.typ, r.Err)
		}
	}
}
