package telemetry

import (
	"context"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/rtcagent/rtcagent/internal/protocol"
	"github.com/rtcagent/rtcagent/internal/testkit/otlpreceiver"
)

// Spans written from stored timestamps and ids, in another "process" (a second
// Tracer), land under the parents their ids name: the turn's root span written
// last is the parent of the step written first.
func TestStoredIDsJoinOneTrace(t *testing.T) {
	rcv := &otlpreceiver.Receiver{}
	srv := httptest.NewServer(rcv)
	defer srv.Close()
	ctx := context.Background()
	newTracer := func() *Tracer {
		tr, err := New(ctx, Config{Endpoint: srv.URL, BatchTimeout: 10 * time.Millisecond})
		if err != nil || tr == nil {
			t.Fatalf("tracer: %v %v", tr, err)
		}
		return tr
	}
	first := newTracer()
	turnTP := first.NewTurnParent()
	rtcTP := first.ChildParent(turnTP)
	if parse(turnTP).TraceID() != parse(rtcTP).TraceID() || parse(turnTP).SpanID() == parse(rtcTP).SpanID() {
		t.Fatalf("traceparents %s %s", turnTP, rtcTP)
	}
	_, step := first.StartStep(ctx, turnTP, "openai:gpt-4o", 0)
	step.End(protocol.Usage{InputTokens: 10, OutputTokens: 3}, 1, nil)
	if err := first.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}

	second := newTracer()
	start := time.Now().Add(-time.Second)
	r := &protocol.RTC{ID: "R", TurnID: "T", SessionID: "S", ToolName: "write", TraceParent: rtcTP, Status: protocol.RTCCompleted, UpdatedAt: time.Now()}
	delivered, decided := start.Add(100*time.Millisecond), start.Add(300*time.Millisecond)
	end := start.Add(500 * time.Millisecond)
	a := &protocol.AuditRecord{CreatedAt: start, DeliveredAt: &delivered, EndedAt: &end, NeedsConfirmation: true, WorkMode: "manual",
		Decision:  protocol.AuditDecision{Outcome: protocol.DecisionAllowed, By: protocol.DecidedByUser, DeviceID: "d", At: &decided},
		Execution: &protocol.RTCExecution{StartedAt: decided, EndedAt: end, Outcome: "ok"}}
	second.rtcSpans(r, a, turnTP)
	second.turnSpan(&protocol.Turn{ID: "T", SessionID: "S", Status: protocol.TurnCompleted, Step: 1, TraceParent: turnTP,
		CreatedAt: start.Add(-time.Second), UpdatedAt: time.Now()})
	if err := second.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}

	spans := rcv.Trace(parse(turnTP).TraceID().String())
	t.Log("\n" + otlpreceiver.Waterfall(spans, 30))
	parent := map[string]string{}
	id := map[string]string{}
	for _, s := range spans {
		id[s.Name] = s.SpanID
		parent[s.Name] = s.ParentID
	}
	want := map[string]string{"chat gpt-4o": "turn", "execute_tool write": "turn", "rtc.queued": "execute_tool write",
		"rtc.confirm": "execute_tool write", "rtc.execute": "execute_tool write"}
	for name, p := range want {
		if parent[name] == "" || parent[name] != id[p] {
			t.Errorf("%s: parent %q, want %s (%q)", name, parent[name], p, id[p])
		}
	}
	if len(spans) != 6 || parent["turn"] != "" || id["turn"] != parse(turnTP).SpanID().String() || id["execute_tool write"] != parse(rtcTP).SpanID().String() {
		t.Fatalf("spans %v", spans)
	}
}

// Without an endpoint nothing is traced, and a nil Tracer is safe to use.
func TestOff(t *testing.T) {
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "")
	t.Setenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "")
	tr, err := New(context.Background(), Config{})
	if err != nil || tr != nil {
		t.Fatalf("%v %v", tr, err)
	}
	if tp := tr.NewTurnParent(); tp != "" {
		t.Fatal(tp)
	}
	_, step := tr.StartStep(context.Background(), "", "m", 0)
	step.End(protocol.Usage{}, 0, nil)
	_, end := tr.Compaction(context.Background(), "", 1)
	end(nil)
	if !strings.HasPrefix(format(parse("00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01").TraceID(), newSpanID()), "00-0af7651916cd43dd8448eb211c80319c-") {
		t.Fatal("traceparent round trip")
	}
}
