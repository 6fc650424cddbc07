package e2e

import (
	"strings"
	"testing"
	"time"

	"github.com/rtcagent/rtcagent/internal/config"
	"github.com/rtcagent/rtcagent/internal/llm"
	"github.com/rtcagent/rtcagent/internal/llm/llmfake"
	"github.com/rtcagent/rtcagent/internal/protocol"
)

// The write → read conversation through the real OpenAI and Anthropic SDK code
// paths, against local servers that speak their streaming wire formats.
func TestRoundTripProviders(t *testing.T) {
	cases := []struct {
		name       string
		start      func(brain llm.Model) *llmfake.Server
		configure  func(c *config.Config, url string)
		resultMark string // how the provider's wire format carries a tool result
	}{
		{"openai", llmfake.NewOpenAI, func(c *config.Config, url string) {
			c.Provider, c.OpenAIURL, c.OpenAIKey, c.OpenAIMdl = "openai", url, "test-key", "gpt-test"
		}, `"tool_call_id"`},
		{"anthropic", llmfake.NewAnthropic, func(c *config.Config, url string) {
			c.Provider, c.AnthURL, c.AnthKey, c.AnthMdl = "anthropic", url, "test-key", "claude-test"
		}, `"tool_result"`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			fake := tc.start(mustScript(t, writeReadScript))
			t.Cleanup(fake.Close)
			s := startServer(t, nil, func(c *config.Config) { tc.configure(c, fake.URL()) })
			checkWriteRead(t, s)
			reqs := fake.Requests()
			if len(reqs) != 3 {
				t.Fatalf("%d provider requests, want 3 (one per step)", len(reqs))
			}
			if last := string(reqs[2]); !strings.Contains(last, "hello rtc") || !strings.Contains(last, tc.resultMark) {
				t.Fatalf("last request lacks the tool result: %.300s", last)
			}
		})
	}
}

// The round trip with Centrifuge's Redis broker carrying the publications and the
// Live buffer in Redis: the store's offsets survive the trip through Redis.
func TestRoundTripRedisBroker(t *testing.T) {
	url := requireRedis(t)
	s := startServer(t, mustScript(t, writeReadScript), func(c *config.Config) { c.RedisURL, c.RedisPfx = url, uniquePrefix() })
	checkWriteRead(t, s)
}

// Token accounting: the session's totals equal what the provider reported.
func TestUsageTotalsMatchProvider(t *testing.T) {
	brain := mustScript(t, writeReadScript)
	fake := llmfake.NewOpenAI(brain)
	t.Cleanup(fake.Close)
	s := startServer(t, nil, func(c *config.Config) {
		c.Provider, c.OpenAIURL, c.OpenAIKey, c.OpenAIMdl = "openai", fake.URL(), "k", "gpt-test"
	})
	b := newBrowser(t, s, "alice", "dev-a")
	res := b.send("", "write and read")
	b.waitTurn(res.TurnID, 10*time.Second)
	var got protocol.SessionResult
	b.mustCall(protocol.MethodSessionGet, protocol.IDRequest{SessionID: res.SessionID}, &got)
	want := fake.Usage()
	if got.Session.Usage.InputTokens != want.InputTokens || got.Session.Usage.OutputTokens != want.OutputTokens || want.InputTokens == 0 {
		t.Fatalf("session usage %+v, provider reported %+v", got.Session.Usage, want)
	}
	if got.Session.ContextTokens == 0 || got.Session.ContextTokens > want.InputTokens {
		t.Fatalf("context tokens %d", got.Session.ContextTokens)
	}
	var tl protocol.TurnListResult
	b.mustCall(protocol.MethodTurnList, protocol.ListRequest{SessionID: res.SessionID}, &tl)
	if tl.Turns[0].Usage != got.Session.Usage {
		t.Fatalf("turn usage %+v", tl.Turns[0].Usage)
	}
	var sum protocol.Usage
	for _, m := range b.assistantMessages(res.SessionID) {
		if m.Usage != nil {
			sum.Add(*m.Usage)
		}
	}
	if sum != got.Session.Usage {
		t.Fatalf("messages sum to %+v", sum)
	}
}

// Transient provider errors are retried with backoff; when they persist the turn
// fails with a visible, retryable error message.
func TestProviderErrorsRetriedThenReported(t *testing.T) {
	brain := mustScript(t, writeReadScript)
	fake := llmfake.NewOpenAI(brain)
	t.Cleanup(fake.Close)
	s := startServer(t, nil, func(c *config.Config) {
		c.Provider, c.OpenAIURL, c.OpenAIKey, c.OpenAIMdl = "openai", fake.URL(), "k", "gpt-test"
		c.Retries, c.RetryWait = 2, 20*time.Millisecond
	})
	b := newBrowser(t, s, "alice", "dev-a")
	fake.FailNext(2, 503)
	res := b.send("", "write and read")
	if tr := b.waitTurn(res.TurnID, 10*time.Second); tr.Status != protocol.TurnCompleted {
		t.Fatalf("turn after two transient failures: %s %+v", tr.Status, tr.Error)
	}
	fake.FailNext(3, 429)
	res = b.send(res.SessionID, "again")
	tr := b.waitTurn(res.TurnID, 10*time.Second)
	if tr.Status != protocol.TurnFailed || tr.Error == nil || tr.Error.Category != "model_error" || !tr.Error.Retryable {
		t.Fatalf("turn after persistent failures: %s %+v", tr.Status, tr.Error)
	}
	msgs := b.assistantMessages(res.SessionID)
	last := msgs[len(msgs)-1]
	if last.Status != protocol.MessageError || !strings.Contains(last.Text, "rate limiting") {
		t.Fatalf("error message %q (%s)", last.Text, last.Status)
	}
	fake.FailNext(1, 401)
	res = b.send(res.SessionID, "third")
	if tr := b.waitTurn(res.TurnID, 10*time.Second); tr.Status != protocol.TurnFailed || tr.Error.Retryable {
		t.Fatalf("auth failure: %s %+v", tr.Status, tr.Error)
	}
}
