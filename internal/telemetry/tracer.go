package telemetry

import (
	"context"
	"crypto/rand"
	"errors"
	"os"
	"strings"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	semconv "go.opentelemetry.io/otel/semconv/v1.40.0"
	"go.opentelemetry.io/otel/trace"
)

// Config configures tracing.
type Config struct {
	// Endpoint is the OTLP/HTTP endpoint: a base URL (http://collector:4318,
	// traces go to /v1/traces) or "" to use OTEL_EXPORTER_OTLP_ENDPOINT or
	// OTEL_EXPORTER_OTLP_TRACES_ENDPOINT. With none of them, tracing is off.
	Endpoint string
	// ServiceName names this service in the traces (default "rtcagent").
	ServiceName string
	// BatchTimeout is the longest a finished span waits before it is sent
	// (default 5 s).
	BatchTimeout time.Duration
}

// Enabled reports whether cfg turns tracing on.
func (cfg Config) Enabled() bool {
	return cfg.Endpoint != "" || os.Getenv("OTEL_EXPORTER_OTLP_ENDPOINT") != "" || os.Getenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT") != ""
}

// Tracer writes the spans of turns. A nil Tracer does nothing.
type Tracer struct {
	tp *sdktrace.TracerProvider
	tr trace.Tracer
}

// New starts tracing, or returns nil when cfg does not enable it.
func New(ctx context.Context, cfg Config) (*Tracer, error) {
	if !cfg.Enabled() {
		return nil, nil
	}
	var opts []otlptracehttp.Option
	if cfg.Endpoint != "" {
		u := strings.TrimSuffix(cfg.Endpoint, "/")
		if !strings.HasSuffix(u, "/v1/traces") {
			u += "/v1/traces"
		}
		opts = append(opts, otlptracehttp.WithEndpointURL(u))
	}
	exp, err := otlptracehttp.New(ctx, opts...)
	if err != nil {
		return nil, err
	}
	name := cfg.ServiceName
	if name == "" {
		name = "rtcagent"
	}
	if cfg.BatchTimeout <= 0 {
		cfg.BatchTimeout = 5 * time.Second
	}
	tp := sdktrace.NewTracerProvider(
		sdktrace.WithBatcher(exp, sdktrace.WithBatchTimeout(cfg.BatchTimeout)),
		sdktrace.WithResource(resource.NewSchemaless(semconv.ServiceName(name))),
		sdktrace.WithIDGenerator(presetIDs{}),
	)
	return &Tracer{tp: tp, tr: tp.Tracer("github.com/rtcagent/rtcagent")}, nil
}

// Flush sends the finished spans now.
func (t *Tracer) Flush(ctx context.Context) error {
	if t == nil {
		return nil
	}
	return t.tp.ForceFlush(ctx)
}

// Shutdown sends the finished spans and stops.
func (t *Tracer) Shutdown(ctx context.Context) error {
	if t == nil {
		return nil
	}
	return t.tp.Shutdown(ctx)
}

// NewTurnParent returns the traceparent of a new turn: a new trace and the id
// of the turn's root span, written when the turn ends. "" when tracing is off.
func (t *Tracer) NewTurnParent() string {
	if t == nil {
		return ""
	}
	var tid trace.TraceID
	_, _ = rand.Read(tid[:])
	return format(tid, newSpanID())
}

// ChildParent returns the traceparent of a new span under parent (same trace, a
// new span id): an RTC's, stored with it. "" when tracing is off or parent is
// not a valid traceparent.
func (t *Tracer) ChildParent(parent string) string {
	sc := parse(parent)
	if t == nil || !sc.IsValid() {
		return ""
	}
	return format(sc.TraceID(), newSpanID())
}

// Span starts a span under the span in ctx, or else under the span of the
// traceparent parent (a turn's). end finishes it, with err as its status. When
// tracing is off or there is no parent, nothing is recorded.
func (t *Tracer) Span(ctx context.Context, parent, name string, attrs ...attribute.KeyValue) (context.Context, func(err error)) {
	ctx, span := t.start(ctx, parent, name, attrs...)
	return ctx, func(err error) {
		endWith(span, err)
		span.End()
	}
}

// start is Span's beginning; the span does not record when nothing is traced.
func (t *Tracer) start(ctx context.Context, parent, name string, attrs ...attribute.KeyValue) (context.Context, trace.Span) {
	if t == nil {
		return ctx, trace.SpanFromContext(context.Background()) // the no-op span
	}
	if !trace.SpanContextFromContext(ctx).IsValid() {
		sc := parse(parent)
		if !sc.IsValid() {
			return ctx, trace.SpanFromContext(context.Background()) // the no-op span
		}
		ctx = trace.ContextWithRemoteSpanContext(ctx, sc)
	}
	return t.tr.Start(ctx, name, trace.WithAttributes(attrs...))
}

// endWith sets the span's status from err.
func endWith(span trace.Span, err error) {
	if err != nil && !errors.Is(err, context.Canceled) {
		span.RecordError(err)
		span.SetStatus(codes.Error, err.Error())
	}
}

var traceContext = propagation.TraceContext{}

// parse reads a W3C traceparent; the result is invalid when it is not one.
func parse(traceparent string) trace.SpanContext {
	if traceparent == "" {
		return trace.SpanContext{}
	}
	ctx := traceContext.Extract(context.Background(), propagation.MapCarrier{"traceparent": traceparent})
	return trace.SpanContextFromContext(ctx)
}

// format writes a sampled span context as a W3C traceparent.
func format(tid trace.TraceID, sid trace.SpanID) string {
	sc := trace.NewSpanContext(trace.SpanContextConfig{TraceID: tid, SpanID: sid, TraceFlags: trace.FlagsSampled})
	c := propagation.MapCarrier{}
	traceContext.Inject(trace.ContextWithSpanContext(context.Background(), sc), c)
	return c["traceparent"]
}

func newSpanID() trace.SpanID {
	var sid trace.SpanID
	for !sid.IsValid() {
		_, _ = rand.Read(sid[:])
	}
	return sid
}
