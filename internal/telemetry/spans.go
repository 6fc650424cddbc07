package telemetry

import (
	"context"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	semconv "go.opentelemetry.io/otel/semconv/v1.40.0"
	"go.opentelemetry.io/otel/trace"

	"github.com/rtcagent/rtcagent/internal/protocol"
	"github.com/rtcagent/rtcagent/internal/tools"
)

// Span names of what outlives a process.
const (
	SpanTurn    = "turn"
	SpanQueued  = "rtc.queued"  // created, waiting behind an earlier call of its step
	SpanConfirm = "rtc.confirm" // delivered, waiting for a person to allow or deny it
	SpanExecute = "rtc.execute" // the browser's report of running it
)

// Attribute keys of this service.
const (
	AttrTurnID    = attribute.Key("rtcagent.turn.id")
	AttrSessionID = attribute.Key("rtcagent.session.id")
	AttrStatus    = attribute.Key("rtcagent.status")
	AttrDecision  = attribute.Key("rtcagent.decision")
	AttrDecidedBy = attribute.Key("rtcagent.decided_by")
	AttrWorkMode  = attribute.Key("rtcagent.work_mode")
	AttrRTCID     = attribute.Key("rtcagent.rtc.id")
	// AttrWait tells whose time a span is: "human" (a person decides or
	// answers) or "machine".
	AttrWait = attribute.Key("rtcagent.wait")
)

// turnSpan writes the root span of a turn that ended, with the ids stored in its
// traceparent, from its creation to its end.
func (t *Tracer) turnSpan(turn *protocol.Turn) {
	sc := parse(turn.TraceParent)
	if t == nil || !sc.IsValid() {
		return
	}
	ctx := withIDs(context.Background(), sc)
	attrs := []attribute.KeyValue{semconv.GenAIOperationNameInvokeAgent, AttrTurnID.String(turn.ID), AttrSessionID.String(turn.SessionID),
		AttrStatus.String(turn.Status), attribute.Int("rtcagent.turn.steps", turn.Step),
		semconv.GenAIUsageInputTokens(int(turn.Usage.InputTokens)), semconv.GenAIUsageOutputTokens(int(turn.Usage.OutputTokens))}
	if turn.Kind != "" {
		attrs = append(attrs, attribute.String("rtcagent.turn.kind", turn.Kind))
	}
	if turn.RetryOf != "" {
		attrs = append(attrs, attribute.String("rtcagent.turn.retry_of", turn.RetryOf))
	}
	_, span := t.tr.Start(ctx, SpanTurn, trace.WithNewRoot(), trace.WithTimestamp(turn.CreatedAt), trace.WithAttributes(attrs...))
	if turn.Error != nil {
		span.SetStatus(codes.Error, turn.Error.Category+": "+turn.Error.Message)
	}
	span.End(trace.WithTimestamp(turn.UpdatedAt))
}

// rtcSpans writes the span of an RTC that ended ("execute_tool <tool>", with the
// ids stored in its traceparent, under its turn's span) and its phases: queued
// behind an earlier call, waiting for a person's decision, and the browser's
// execution.
func (t *Tracer) rtcSpans(r *protocol.RTC, a *protocol.AuditRecord, turnParent string) {
	sc, parent := parse(r.TraceParent), parse(turnParent)
	if t == nil || !sc.IsValid() || !parent.IsValid() || sc.TraceID() != parent.TraceID() {
		return
	}
	end := r.UpdatedAt
	if a.EndedAt != nil {
		end = *a.EndedAt
	}
	ctx := withIDs(trace.ContextWithRemoteSpanContext(context.Background(), parent), sc)
	_, span := t.tr.Start(ctx, "execute_tool "+r.ToolName, trace.WithTimestamp(a.CreatedAt), trace.WithAttributes(
		semconv.GenAIOperationNameExecuteTool, semconv.GenAIToolName(r.ToolName), semconv.GenAIToolCallID(r.ToolCallID),
		AttrRTCID.String(r.ID), AttrTurnID.String(r.TurnID), AttrSessionID.String(r.SessionID), AttrStatus.String(r.Status),
		AttrWorkMode.String(a.WorkMode), AttrDecision.String(a.Decision.Outcome), AttrDecidedBy.String(a.Decision.By),
		attribute.Bool("rtcagent.needs_confirmation", a.NeedsConfirmation)))
	if r.Status != protocol.RTCCompleted {
		span.SetStatus(codes.Error, r.Status+": "+r.Error)
	}
	// The phases hang under the call's span, started from a context without the
	// call's preset ids.
	under := trace.ContextWithSpanContext(context.Background(), sc)
	phase := func(name string, from, to time.Time, attrs ...attribute.KeyValue) {
		if to.Before(from) {
			to = from
		}
		_, s := t.tr.Start(under, name, trace.WithTimestamp(from), trace.WithAttributes(attrs...))
		s.End(trace.WithTimestamp(to))
	}
	if a.DeliveredAt != nil && a.DeliveredAt.After(a.CreatedAt) {
		phase(SpanQueued, a.CreatedAt, *a.DeliveredAt, AttrWait.String("machine"))
	}
	if d := a.Decision; a.NeedsConfirmation && a.DeliveredAt != nil && d.At != nil && d.By != protocol.DecidedByWorkMode {
		phase(SpanConfirm, *a.DeliveredAt, *d.At, AttrWait.String("human"), AttrDecision.String(d.Outcome), AttrDecidedBy.String(d.By),
			attribute.String("rtcagent.device_id", d.DeviceID))
	}
	if e := a.Execution; e != nil {
		wait := "machine"
		if tools.AsksPerson(r.ToolName) {
			wait = "human"
		}
		phase(SpanExecute, e.StartedAt, e.EndedAt, AttrWait.String(wait), attribute.String("rtcagent.outcome", e.Outcome))
	}
	span.End(trace.WithTimestamp(end))
}
