package e2e

import (
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/rtcagent/rtcagent/internal/protocol"
	"github.com/rtcagent/rtcagent/internal/server"
	"github.com/rtcagent/rtcagent/internal/testkit/otlpreceiver"
	"github.com/rtcagent/rtcagent/internal/testkit/testserver"
)

// One turn's trace, sent with the OTLP HTTP exporter to a receiver in this
// process: a write a person allows in manual mode, with a server restart while
// it waits, then a read and the answer. The turn is one trace whose spans have
// the expected parents, names and attributes, also across the restart.
func TestTraceOfATour(t *testing.T) {
	rcv := &otlpreceiver.Receiver{}
	collector := httptest.NewServer(rcv)
	defer collector.Close()

	cfg := testserver.Config(t)
	cfg.OTLPEndpoint = collector.URL
	opts := server.Options{Model: mustScript(t, writeReadScript), VerifyTranscripts: true, TraceBatchTimeout: 50 * time.Millisecond}

	first := &testServer{testserver.Run(t, cfg, nil, opts)}
	b1 := newBrowser(t, first, "alice", "dev-a", noExecute)
	res := b1.sendMode("", "write and read", protocol.ModeManual)
	write := b1.pendingRTC()
	if write.TraceParent == "" || !write.NeedsConfirmation {
		t.Fatalf("the delivered call carries no trace context: %+v", write)
	}
	b1.c.Close()
	first.Stop(t)

	// A restart: the person allows the call on the new process, which resumes
	// the turn in the same trace.
	second := &testServer{testserver.Run(t, cfg, nil, opts)}
	b2 := newBrowser(t, second, "alice", "dev-a")
	b2.mu.Lock()
	b2.seenRTC[write.ID] = true // this test answers the write itself
	b2.files["/notes.txt"] = "hello rtc"
	b2.mu.Unlock()
	b2.mustCall(protocol.MethodRTCUpdateStatus, protocol.RTCUpdateStatusRequest{RTCID: write.ID, Status: protocol.RTCExecuting, ClientID: "x-w"}, nil)
	started := time.Now()
	time.Sleep(20 * time.Millisecond)
	b2.mustCall(protocol.MethodRTCSubmitResult, protocol.RTCSubmitResultRequest{RTCID: write.ID, ClientID: "r-w", OK: true,
		Output: jsonOf("hello rtc"), Execution: &protocol.RTCExecution{StartedAt: started, EndedAt: time.Now(), Outcome: "ok"}}, nil)
	if tr := b2.waitTurn(res.TurnID, 20*time.Second); tr.Status != protocol.TurnCompleted {
		t.Fatalf("turn %s %+v", tr.Status, tr.Error)
	}
	var turn protocol.TurnResult
	b2.mustCall(protocol.MethodTurnGet, protocol.IDRequest{TurnID: res.TurnID}, &turn)
	// The metrics of the tour (histograms are process-wide: present, not counted).
	waitFor(t, "tool call metrics", 10*time.Second, func() bool {
		resp, err := http.Get(second.HTTP.URL + "/metrics")
		if err != nil {
			return false
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		for _, m := range []string{`rtcagent_rtc_round_trip_seconds_bucket{tool="read"`, `rtcagent_human_wait_seconds_count{kind="confirm"}`,
			`rtcagent_rtc_outcomes_total{decision="allowed",status="completed",tool="write"}`, `rtcagent_model_step_tokens_bucket{direction="input"`, `rtcagent_model_step_seconds_bucket{`} {
			if !strings.Contains(string(body), m) {
				return false
			}
		}
		return true
	})
	second.Stop(t) // flushes the spans of the turn's end

	traceID := strings.Split(turn.Turn.TraceParent, "-")[1]
	var spans []otlpreceiver.Span
	deadline := time.Now().Add(10 * time.Second)
	for spans = rcv.Trace(traceID); len(spans) < 8; spans = rcv.Trace(traceID) {
		if time.Now().After(deadline) {
			t.Fatalf("trace %s: %d spans of %d received: %v", traceID, len(spans), len(rcv.Spans()), names(rcv.Spans()))
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Log("\n" + otlpreceiver.Waterfall(spans, 40, "gen_ai.usage.input_tokens", "gen_ai.response.finish_reasons", "rtcagent.decision", "rtcagent.wait"))
	if os.Getenv("RTCAGENT_TRACE_DOC") != "" {
		writeTraceDoc(t, os.Getenv("RTCAGENT_TRACE_DOC"), spans)
	}
	if path := os.Getenv("RTCAGENT_TRACE_HTML"); path != "" { // a page to screenshot for the README
		page := otlpreceiver.HTML("One turn of the write-read tour (rendered by RTC Agent's test receiver, not Jaeger)", spans,
			"gen_ai.usage.input_tokens", "gen_ai.usage.output_tokens", "gen_ai.response.finish_reasons",
			"rtcagent.decision", "rtcagent.decided_by", "rtcagent.wait", "rtcagent.outcome")
		if err := os.WriteFile(path, []byte(page), 0o644); err != nil {
			t.Fatal(err)
		}
	}

	byName := map[string][]otlpreceiver.Span{}
	ids := map[string]otlpreceiver.Span{}
	for _, s := range spans {
		byName[s.Name] = append(byName[s.Name], s)
		ids[s.SpanID] = s
	}
	one := func(name string) otlpreceiver.Span {
		t.Helper()
		if len(byName[name]) != 1 {
			t.Fatalf("%d spans %q, want 1; spans: %v", len(byName[name]), name, names(spans))
		}
		return byName[name][0]
	}
	root := one("turn")
	if root.ParentID != "" || root.Attrs["rtcagent.turn.id"] != res.TurnID || root.Attrs["rtcagent.status"] != "completed" ||
		root.Attrs["gen_ai.operation.name"] != "invoke_agent" || root.Attrs["rtcagent.turn.steps"] != "3" {
		t.Fatalf("root %+v", root)
	}
	chats := byName["chat write-read"]
	if len(chats) != 3 {
		t.Fatalf("%d model steps, want 3: %v", len(chats), names(spans))
	}
	for i, c := range chats {
		want := []string{"tool_calls", "tool_calls", "stop"}[i]
		if c.ParentID != root.SpanID || c.Attrs["gen_ai.request.model"] != "write-read" || c.Attrs["gen_ai.provider.name"] != "scripted" ||
			c.Attrs["gen_ai.response.finish_reasons"] != want || c.Attrs["gen_ai.usage.input_tokens"] == "0" || c.Attrs["gen_ai.usage.output_tokens"] == "" {
			t.Fatalf("step %d: %+v", i, c)
		}
	}
	w := one("execute_tool write")
	if w.ParentID != root.SpanID || w.SpanID != strings.Split(write.TraceParent, "-")[2] || w.Attrs["gen_ai.tool.name"] != "write" ||
		w.Attrs["rtcagent.decision"] != "allowed" || w.Attrs["rtcagent.decided_by"] != "user" || w.Attrs["rtcagent.status"] != "completed" {
		t.Fatalf("write span %+v", w)
	}
	r := one("execute_tool read")
	if r.ParentID != root.SpanID || r.Attrs["rtcagent.decided_by"] != "work_mode" {
		t.Fatalf("read span %+v", r)
	}
	confirm := one("rtc.confirm")
	if confirm.ParentID != w.SpanID || confirm.Attrs["rtcagent.wait"] != "human" || confirm.Attrs["rtcagent.device_id"] != "dev-a" {
		t.Fatalf("confirm %+v", confirm)
	}
	var writeExec, readExec bool
	for _, e := range byName["rtc.execute"] {
		switch e.ParentID {
		case w.SpanID:
			writeExec = e.Attrs["rtcagent.wait"] == "machine" && e.Attrs["rtcagent.outcome"] == "ok" && !e.Start.Before(confirm.Start)
		case r.SpanID:
			readExec = true
		}
	}
	if !writeExec || readExec { // the harness browser sends no report for the read
		t.Fatalf("execution spans: %v", byName["rtc.execute"])
	}
	for _, s := range spans {
		if s.End.Before(s.Start) {
			t.Fatalf("span %s ends before it starts", s.Name)
		}
		if s.ParentID != "" && ids[s.ParentID].SpanID == "" {
			t.Fatalf("span %s has a parent outside the trace", s.Name)
		}
	}
}

func names(spans []otlpreceiver.Span) []string {
	var out []string
	for _, s := range spans {
		out = append(out, s.Name)
	}
	return out
}

// writeTraceDoc renders the trace into the docs (RTCAGENT_TRACE_DOC=path).
func writeTraceDoc(t *testing.T, path string, spans []otlpreceiver.Span) {
	text := "One turn of the write-read tour, as the test's in-process OTLP receiver got it\n" +
		"(TestTraceOfATour; the server restarted while the write waited for the person).\n\n" +
		otlpreceiver.Waterfall(spans, 40, "gen_ai.usage.input_tokens", "gen_ai.usage.output_tokens", "gen_ai.response.finish_reasons",
			"rtcagent.decision", "rtcagent.decided_by", "rtcagent.wait")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}
