package telemetry

import (
	"context"
	"crypto/rand"

	"go.opentelemetry.io/otel/trace"
)

// presetIDs gives a span the ids stored for it (withIDs), so a span written when
// it ends, maybe by another process, is the one its children already name as
// their parent. Spans without stored ids get random ones.
type presetIDs struct{}

type idsKey struct{}

type ids struct {
	trace trace.TraceID
	span  trace.SpanID
}

// withIDs makes the next span started with ctx take the ids of sc.
func withIDs(ctx context.Context, sc trace.SpanContext) context.Context {
	return context.WithValue(ctx, idsKey{}, ids{trace: sc.TraceID(), span: sc.SpanID()})
}

func (presetIDs) NewIDs(ctx context.Context) (trace.TraceID, trace.SpanID) {
	if p, ok := ctx.Value(idsKey{}).(ids); ok {
		return p.trace, p.span
	}
	var tid trace.TraceID
	_, _ = rand.Read(tid[:])
	return tid, newSpanID()
}

func (presetIDs) NewSpanID(ctx context.Context, tid trace.TraceID) trace.SpanID {
	if p, ok := ctx.Value(idsKey{}).(ids); ok && p.trace == tid {
		return p.span
	}
	return newSpanID()
}
