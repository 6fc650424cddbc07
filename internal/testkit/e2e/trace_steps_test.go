package e2e

import (
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rtcagent/rtcagent/internal/config"
	"github.com/rtcagent/rtcagent/internal/llm"
	"github.com/rtcagent/rtcagent/internal/protocol"
	"github.com/rtcagent/rtcagent/internal/server"
	"github.com/rtcagent/rtcagent/internal/testkit/otlpreceiver"
	"github.com/rtcagent/rtcagent/internal/testkit/testserver"
)

// startTraced starts a server that sends its spans to a receiver in this process.
func startTraced(t *testing.T, model llm.Model, opts ...serverOpt) (*testServer, *otlpreceiver.Receiver) {
	t.Helper()
	rcv := &otlpreceiver.Receiver{}
	collector := httptest.NewServer(rcv)
	t.Cleanup(collector.Close)
	cfg := testserver.Config(t)
	for _, o := range opts {
		o(&cfg)
	}
	cfg.OTLPEndpoint = collector.URL
	srv := testserver.Run(t, cfg, nil, server.Options{Model: model, VerifyTranscripts: true, TraceBatchTimeout: 50 * time.Millisecond})
	return &testServer{srv}, rcv
}

// turnTrace returns the spans of the turns' traces once the server stopped (which
// sends every finished span), each trace with its root "turn" span.
func turnTrace(t *testing.T, b *browser, s *testServer, rcv *otlpreceiver.Receiver, turnIDs ...string) map[string][]otlpreceiver.Span {
	t.Helper()
	traceIDs := map[string]string{}
	for _, id := range turnIDs {
		var tr protocol.TurnResult
		b.mustCall(protocol.MethodTurnGet, protocol.IDRequest{TurnID: id}, &tr)
		parts := strings.Split(tr.Turn.TraceParent, "-")
		if len(parts) != 4 {
			t.Fatalf("turn %s has no traceparent: %q", id, tr.Turn.TraceParent)
		}
		traceIDs[id] = parts[1]
	}
	s.Stop(t)
	out := map[string][]otlpreceiver.Span{}
	waitFor(t, "the turns' root spans", 10*time.Second, func() bool {
		for id, tid := range traceIDs {
			spans := rcv.Trace(tid)
			if len(byName(spans)["turn"]) != 1 {
				return false
			}
			out[id] = spans
		}
		return true
	})
	for id, spans := range out {
		t.Logf("turn %s\n%s", id, otlpreceiver.Waterfall(spans, 40, "rtcagent.step.attempt", "gen_ai.response.finish_reasons", "error.type",
			"rtcagent.compaction.summary_of_seq"))
	}
	return out
}

func byName(spans []otlpreceiver.Span) map[string][]otlpreceiver.Span {
	out := map[string][]otlpreceiver.Span{}
	for _, s := range spans {
		out[s.Name] = append(out[s.Name], s)
	}
	return out
}

// childrenOf returns the spans whose parent is the span id.
func childrenOf(spans []otlpreceiver.Span, id string) []otlpreceiver.Span {
	var out []otlpreceiver.Span
	for _, s := range spans {
		if s.ParentID == id {
			out = append(out, s)
		}
	}
	return out
}

// A model step that fails with a transient provider error and is retried: the
// turn's trace has one span per attempt, both under the turn, the first an error
// with its category, the second the step's success.
func TestTraceOfRetriedStep(t *testing.T) {
	fake, provider := openAICase.serve(t, mustScript(t, `{"name": "hello", "turns": [{"steps": [{"text": "hello there"}]}]}`))
	s, rcv := startTraced(t, nil, provider, func(c *config.Config) { c.Retries, c.RetryWait = 1, 10*time.Millisecond })
	b := newBrowser(t, s, "alice", "dev-a")
	fake.FailNext(1, 503)
	res := b.send("", "hi")
	if tr := b.waitTurn(res.TurnID, 10*time.Second); tr.Status != protocol.TurnCompleted {
		t.Fatalf("turn %s %+v", tr.Status, tr.Error)
	}
	if n := len(fake.Requests()); n != 2 {
		t.Fatalf("%d provider requests, want 2 (a failure and its retry)", n)
	}
	spans := turnTrace(t, b, s, rcv, res.TurnID)[res.TurnID]
	names := byName(spans)
	root := names["turn"][0]
	if root.Attrs["rtcagent.status"] != "completed" || root.Attrs["rtcagent.turn.steps"] != "1" || root.Error {
		t.Fatalf("root %+v", root)
	}
	chats := names["chat gpt-test"]
	if len(chats) != 2 || len(spans) != 3 {
		t.Fatalf("spans %v, want the turn and two attempts of its step", names)
	}
	failed, ok := chats[0], chats[1]
	for i, c := range chats {
		if c.ParentID != root.SpanID || c.Attrs["gen_ai.operation.name"] != "chat" || c.Attrs["gen_ai.provider.name"] != "openai" ||
			c.Attrs["gen_ai.request.model"] != "gpt-test" || c.Attrs["rtcagent.step.attempt"] != []string{"0", "1"}[i] {
			t.Fatalf("attempt %d: %+v", i, c)
		}
	}
	if !failed.Error || failed.Attrs["gen_ai.response.finish_reasons"] != "error" || failed.Attrs["error.type"] != llm.CategoryUnavailable ||
		failed.Attrs["rtcagent.step.retryable"] != "true" || failed.Attrs["http.response.status_code"] != "503" ||
		failed.StatusMessage == "" {
		t.Fatalf("failed attempt %+v", failed)
	}
	if ok.Error || ok.Attrs["gen_ai.response.finish_reasons"] != "stop" || ok.Attrs["gen_ai.usage.output_tokens"] == "0" ||
		ok.Attrs["error.type"] != "" || ok.Start.Before(failed.End) {
		t.Fatalf("successful attempt %+v (failed one ended %v)", ok, failed.End)
	}
}

// Compaction in the middle of a turn and as a compact turn of its own: each
// summary is a "compaction" span under its turn, naming the last message it
// covers, with the summary's model call as its only child; the turn's own steps
// stay directly under the turn.
func TestTraceOfCompaction(t *testing.T) {
	const n = 16
	model := factsScript(t, n, 1)
	s, rcv := startTraced(t, model, compactOpts(1200, 300))
	b := newBrowser(t, s, "alice", "dev-a", factsBrowser)
	first := b.send("", "collect the facts")
	if tr := b.waitTurn(first.TurnID, time.Minute); tr.Status != protocol.TurnCompleted {
		t.Fatalf("first turn %s %+v", tr.Status, tr.Error)
	}
	var comp protocol.TurnStartResult
	b.mustCall(protocol.MethodSessionCompact, protocol.SessionCompactRequest{SessionID: first.SessionID}, &comp)
	if tr := b.waitTurn(comp.TurnID, 10*time.Second); tr.Status != protocol.TurnCompleted {
		t.Fatalf("compact turn %s %+v", tr.Status, tr.Error)
	}
	summaries := map[string][]int64{} // turn id → summary_of_seq of its summaries, in order
	for _, m := range listMessages(b, first.SessionID) {
		if m.Role == protocol.RoleSummary {
			summaries[m.TurnID] = append(summaries[m.TurnID], m.SummaryOfSeq)
		}
	}
	if len(summaries[first.TurnID]) == 0 || len(summaries[comp.TurnID]) != 1 {
		t.Fatalf("summaries %v: want some in the first turn and one in the compact turn", summaries)
	}
	traces := turnTrace(t, b, s, rcv, first.TurnID, comp.TurnID)
	for _, id := range []string{first.TurnID, comp.TurnID} {
		spans := traces[id]
		names := byName(spans)
		root := names["turn"][0]
		compactions := names["compaction"]
		if len(compactions) != len(summaries[id]) {
			t.Fatalf("turn %s: %d compaction spans for %d summaries", id, len(compactions), len(summaries[id]))
		}
		for i, c := range compactions {
			kids := childrenOf(spans, c.SpanID)
			if c.ParentID != root.SpanID || c.Error || c.Attrs["rtcagent.compaction.summary_of_seq"] != strconv.FormatInt(summaries[id][i], 10) || len(kids) != 1 {
				t.Fatalf("turn %s compaction %d: %+v, %d children", id, i, c, len(kids))
			}
			k := kids[0]
			if k.Name != "chat facts" || k.Attrs["gen_ai.response.finish_reasons"] != "stop" || k.Attrs["gen_ai.usage.input_tokens"] == "0" ||
				k.Start.Before(c.Start) || k.End.After(c.End) {
				t.Fatalf("turn %s: the summary step of compaction %d is %+v", id, i, k)
			}
		}
		steps := 0
		for _, c := range names["chat facts"] {
			if c.ParentID == root.SpanID {
				steps++
			}
		}
		if want := root.Attrs["rtcagent.turn.steps"]; strconv.Itoa(steps) != want {
			t.Fatalf("turn %s: %d model steps under the turn, the turn counts %s", id, steps, want)
		}
		if len(spans) != 1+steps+2*len(compactions)+len(names["execute_tool read"])+len(names["rtc.execute"]) {
			t.Fatalf("turn %s: unexpected spans %v", id, names)
		}
	}
	root := byName(traces[comp.TurnID])["turn"][0]
	if root.Attrs["rtcagent.turn.kind"] != protocol.TurnKindCompact {
		t.Fatalf("compact turn's root %+v", root)
	}
}
