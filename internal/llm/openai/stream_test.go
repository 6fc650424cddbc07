package openai

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"

	"github.com/rtcagent/rtcagent/internal/llm"
	"github.com/rtcagent/rtcagent/internal/testkit/llmfake"
)

// sseServer answers every request with the given data lines, for wire shapes
// the fake does not produce; auth returns the Authorization headers received.
func sseServer(t *testing.T, lines ...string) (url string, auth func() []string) {
	t.Helper()
	url, headers := llmfake.ServeSSE(t, llmfake.Data(lines...))
	return url, func() []string {
		var seen []string
		for _, h := range headers() {
			seen = append(seen, h.Get("Authorization"))
		}
		return seen
	}
}

func rawStream(t *testing.T, url, apiKey string) llmfake.Result {
	t.Helper()
	m, err := New(Config{BaseURL: url, APIKey: apiKey, Model: "m"})
	if err != nil {
		t.Fatal(err)
	}
	return llmfake.Ask(context.Background(), m, "x")
}

func TestCompatibleServerQuirks(t *testing.T) {
	url, auth := sseServer(t,
		`{"id":"c1","choices":[{"index":0,"delta":{"role":"assistant","content":"Hi"}}]}`,
		`{"id":"c1","choices":[{"index":0,"delta":{"refusal":" (refused)"}}]}`,
		// Two calls reusing index 0, told apart by their ids.
		`{"id":"c1","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"a","type":"function","function":{"name":"ls","arguments":"{\"pa"}}]}}]}`,
		`{"id":"c1","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"th\":\"/\"}"}}]}}]}`,
		// A call without an id, at index 1, arriving before the second index-0 call.
		`{"id":"c1","choices":[{"index":0,"delta":{"tool_calls":[{"index":1,"function":{"name":"find","arguments":"{}"}}]}}]}`,
		`{"id":"c1","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"b","function":{"name":"read","arguments":"{\"path\":\"/x\"}"}}]}}]}`,
		// A second choice must not leak into the first.
		`{"id":"c1","choices":[{"index":1,"delta":{"content":"other choice"}}]}`,
		// Usage in the same chunk as the finish_reason.
		`{"id":"c1","choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}],"usage":{"prompt_tokens":11,"completion_tokens":7,"total_tokens":18}}`,
		`[DONE]`,
	)
	r := rawStream(t, url, "sk-test")
	if r.Err != nil || r.Text != "Hi (refused)" {
		t.Fatalf("err %v, text %q", r.Err, r.Text)
	}
	want := []llm.ToolCall{
		{ID: "a", Name: "ls", Arguments: []byte(`{"path":"/"}`)},
		{ID: "b", Name: "read", Arguments: []byte(`{"path":"/x"}`)},
		{ID: "call_c1_2", Name: "find", Arguments: []byte(`{}`)},
	}
	if !reflect.DeepEqual(r.ToolCalls, want) {
		t.Fatalf("calls = %+v", r.ToolCalls)
	}
	last := r.Events[len(r.Events)-1]
	if last.Kind != llm.EventUsage || last.Usage != (llm.Usage{InputTokens: 11, OutputTokens: 7}) {
		t.Fatalf("last event %+v, want the usage", last)
	}
	rawStream(t, url, "")
	if got := auth(); len(got) != 2 || got[0] != "Bearer sk-test" || got[1] != "" {
		t.Fatalf("Authorization headers %q, want the key, then none for an empty key", got)
	}
}

func TestMidStreamErrorKinds(t *testing.T) {
	cases := []struct {
		body      string
		category  string
		retryable bool
	}{
		{`{"error":{"message":"Rate limit reached","type":"requests","code":"rate_limit_exceeded"}}`, "rate_limited", true},
		{`{"error":{"message":"too many tokens","type":"invalid_request_error","code":"context_length_exceeded"}}`, "context_length", false},
		{`{"error":{"message":"bad","type":"invalid_request_error","code":null}}`, "invalid_request", false},
		{`{"error":{"message":"The server had an error","type":"server_error","code":null}}`, "provider_unavailable", true},
		{`{"error":{"message":"context deadline exceeded upstream","type":"server_error"}}`, "provider_unavailable", true},
	}
	for _, c := range cases {
		url, _ := sseServer(t, `{"id":"c1","choices":[{"index":0,"delta":{"content":"so far"}}]}`, c.body)
		r := rawStream(t, url, "")
		var me *llm.Error
		if !errors.As(r.Err, &me) || me.Category != c.category || me.Retryable != c.retryable || me.RequestID != "req_raw" {
			t.Errorf("%s: err = %v", c.body, r.Err)
		}
		if r.Text != "so far" {
			t.Errorf("%s: text before the error = %q", c.body, r.Text)
		}
	}
}

func TestUndecodableErrorBody(t *testing.T) {
	for _, c := range []struct {
		status   int
		body     string
		category string
		message  string
	}{
		{404, `{"error":"model \"x\" not found"}`, "invalid_request", `model "x" not found`},
		{502, `<html>bad gateway</html>`, "provider_unavailable", ""},
	} {
		ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(c.status)
			fmt.Fprint(w, c.body)
		}))
		r := rawStream(t, ts.URL, "")
		ts.Close()
		var me *llm.Error
		if !errors.As(r.Err, &me) || me.Category != c.category || me.Status != c.status {
			t.Errorf("%d %s: err = %v", c.status, c.body, r.Err)
			continue
		}
		if c.message != "" && !strings.Contains(me.Error(), c.message) {
			t.Errorf("%d: error %q lacks the server's message", c.status, me.Error())
		}
	}
}
