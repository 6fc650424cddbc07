package e2e

import (
	"strings"
	"testing"
	"time"

	"github.com/rtcagent/rtcagent/internal/config"
	"github.com/rtcagent/rtcagent/internal/llm"
	"github.com/rtcagent/rtcagent/internal/protocol"
	"github.com/rtcagent/rtcagent/internal/testkit/llmfake"
)

// providerCase runs a test through one of the fake provider servers with the real SDK.
type providerCase struct {
	name       string
	start      func(brain llm.Model) *llmfake.Server
	configure  func(c *config.Config, url string)
	resultMark string // how the provider's wire format carries a tool result
}

var (
	openAICase = providerCase{"openai", llmfake.NewOpenAI, func(c *config.Config, url string) {
		c.Provider, c.OpenAIURL, c.OpenAIKey, c.OpenAIMdl = "openai", url, "test-key", "gpt-test"
	}, `"tool_call_id"`}
	anthropicCase = providerCase{"anthropic", llmfake.NewAnthropic, func(c *config.Config, url string) {
		c.Provider, c.AnthURL, c.AnthKey, c.AnthMdl = "anthropic", url, "test-key", "claude-test"
	}, `"tool_result"`}
	providerCases = []providerCase{openAICase, anthropicCase}
)

// serve starts the provider's fake server for brain, closed when the test ends,
// and returns it with the option that points the server's model at it.
func (pc providerCase) serve(t *testing.T, brain llm.Model) (*llmfake.Server, serverOpt) {
	fake := pc.start(brain)
	t.Cleanup(fake.Close)
	return fake, func(c *config.Config) { pc.configure(c, fake.URL()) }
}

// The write → read conversation through the real OpenAI and Anthropic SDK code
// paths, against local servers that speak their streaming wire formats.
func TestRoundTripProviders(t *testing.T) {
	for _, tc := range providerCases {
		t.Run(tc.name, func(t *testing.T) {
			fake, provider := tc.serve(t, mustScript(t, writeReadScript))
			s := startServer(t, nil, provider)
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
	fake, provider := openAICase.serve(t, mustScript(t, writeReadScript))
	s := startServer(t, nil, provider)
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
	fake, provider := openAICase.serve(t, brain)
	s := startServer(t, nil, provider, func(c *config.Config) { c.Retries, c.RetryWait = 2, 20*time.Millisecond })
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
