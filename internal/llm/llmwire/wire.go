package llmwire

import (
	"context"
	"fmt"
	"net/http"

	"github.com/rtcagent/rtcagent/internal/llm"
)

// Source is a provider SDK's stream of decoded server-sent events, as both SDKs'
// ssestream.Stream[E] are: Next until false, then Err tells why.
type Source[E any] interface {
	Next() bool
	Current() E
	Err() error
	Close() error
}

// Decoder turns one provider's stream events into the step's events. A new one
// decodes each stream, so it may keep state between events (tool call
// fragments); it is used by one goroutine.
type Decoder[E any] interface {
	// Decode reports what ev carries to a, in order, and calls a.Finish when ev
	// says the step is complete.
	Decode(ev E, a *Assembler)
}

// Wire is one provider's own part of a step: how its requests are sent and its
// events decoded, and how its failures read. P is the SDK's request parameters,
// E its stream event.
type Wire[P, E any] struct {
	// Provider names the provider in error messages, e.g. "openai".
	Provider string
	// RequestIDHeader is the response header that carries the request id.
	RequestIDHeader string
	// FinishEvent names what ends a complete step on this wire, for the error of
	// a stream cut before it, e.g. "message_stop".
	FinishEvent string
	// Decoder returns the decoder of one new stream.
	Decoder func() Decoder[E]
	// APIError classifies an error of the SDK or of the stream that only this
	// provider knows how to read, or returns nil for a transport failure or an
	// error it does not recognise. A RequestID it leaves empty is filled in from
	// the response; resp is nil when no response came.
	APIError func(err error, resp *http.Response) *llm.Error
}

// Send starts a streamed request under ctx, storing the response into into as
// soon as its headers are in (the SDKs' option.WithResponseInto).
type Send[P, E any] func(ctx context.Context, params P, into **http.Response) Source[E]

// Stream runs one step: it builds the request with build, sends it with send
// under the deadlines d, and returns once the response headers are in, so an
// HTTP error is returned here rather than from the stream. A request that
// cannot be built fails with invalid_request before anything is sent.
func (w *Wire[P, E]) Stream(ctx context.Context, d llm.Deadlines, req *llm.Request,
	build func(*llm.Request) (P, error), send Send[P, E]) (llm.Stream, error) {
	params, err := build(req)
	if err != nil {
		return nil, &llm.Error{Category: llm.CategoryInvalid, Err: fmt.Errorf("%s: %w", w.Provider, err)}
	}
	var resp *http.Response
	watch := d.Start(ctx)
	src := send(watch.Context(), params, &resp)
	if err := src.Err(); err != nil {
		src.Close()
		watch.Stop()
		return nil, w.failure(ctx, watch, err, resp)
	}
	return &stream[P, E]{ctx: ctx, watch: watch, src: src, resp: resp, wire: w, dec: w.Decoder()}, nil
}
