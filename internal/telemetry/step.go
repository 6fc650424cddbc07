package telemetry

import (
	"context"
	"errors"
	"strings"

	"go.opentelemetry.io/otel/attribute"
	semconv "go.opentelemetry.io/otel/semconv/v1.40.0"
	"go.opentelemetry.io/otel/trace"

	"github.com/rtcagent/rtcagent/internal/llm"
	"github.com/rtcagent/rtcagent/internal/protocol"
)

// Step is the span of one model call.
type Step struct{ span trace.Span }

// StartStep starts the span of one model call ("chat <model>", GenAI semantic
// conventions) under the span in ctx or else under the turn's traceparent.
// model is "provider:model" as llm.Model names it; attempt counts retries of the
// same step from 0.
func (t *Tracer) StartStep(ctx context.Context, parent, model string, attempt int) (context.Context, *Step) {
	provider, name, ok := strings.Cut(model, ":")
	if !ok {
		provider, name = "", model
	}
	attrs := []attribute.KeyValue{semconv.GenAIOperationNameChat, semconv.GenAIRequestModel(name),
		attribute.Int("rtcagent.step.attempt", attempt)}
	if provider != "" {
		attrs = append(attrs, semconv.GenAIProviderNameKey.String(provider))
	}
	ctx, span := t.start(ctx, parent, "chat "+name, attrs...)
	return ctx, &Step{span: span}
}

// End finishes the step with what the model reported: token usage, the reason
// it stopped ("tool_calls" when it asked for tools, else "stop"; "error" on a
// failure) and the error, whose kind is error.type.
func (s *Step) End(usage protocol.Usage, toolCalls int, err error) {
	if s == nil || !s.span.IsRecording() {
		return
	}
	finish := "stop"
	switch {
	case err != nil:
		finish = "error"
	case toolCalls > 0:
		finish = "tool_calls"
	}
	s.span.SetAttributes(semconv.GenAIUsageInputTokens(int(usage.InputTokens)), semconv.GenAIUsageOutputTokens(int(usage.OutputTokens)),
		semconv.GenAIResponseFinishReasons(finish), attribute.Int("rtcagent.step.tool_calls", toolCalls))
	if err != nil {
		s.span.SetAttributes(errorType(err)...)
	}
	endWith(s.span, err)
	s.span.End()
}

// errorType names a failed step's error the GenAI way: error.type is the
// provider error's category ("rate_limited", "provider_unavailable", …) or
// "_OTHER", with whether a retry may help and the provider's HTTP status.
func errorType(err error) []attribute.KeyValue {
	var me *llm.Error
	if !errors.As(err, &me) {
		return []attribute.KeyValue{semconv.ErrorTypeOther}
	}
	attrs := []attribute.KeyValue{semconv.ErrorTypeKey.String(me.Category), attribute.Bool("rtcagent.step.retryable", me.Retryable)}
	if me.Status != 0 {
		attrs = append(attrs, semconv.HTTPResponseStatusCode(me.Status))
	}
	return attrs
}

// SpanCompaction is the span of a summary of a session's history.
const SpanCompaction = "compaction"

// Compaction starts the span of a summary of the history up to message
// summaryOfSeq; the summary's model call is its child.
func (t *Tracer) Compaction(ctx context.Context, parent string, summaryOfSeq int64) (context.Context, func(error)) {
	return t.Span(ctx, parent, SpanCompaction, attribute.Int64("rtcagent.compaction.summary_of_seq", summaryOfSeq))
}
