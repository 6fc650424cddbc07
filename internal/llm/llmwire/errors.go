package llmwire

import (
	"context"
	"fmt"
	"net/http"

	"github.com/rtcagent/rtcagent/internal/llm"
)

// failure is the error of a step whose request or stream failed with err: the
// deadlines' retryable error when they ended the step, else err mapped.
func (w *Wire[P, E]) failure(ctx context.Context, watch *llm.Watch, err error, resp *http.Response) error {
	if se := watch.Stalled(w.requestID(resp)); se != nil {
		return se
	}
	return w.mapError(ctx, err, resp)
}

// cut is the error of a stream that ended cleanly before the provider said the
// step was complete: the deadlines' when they ended it, the caller's ctx's when
// it ended, else a retryable provider_unavailable, since the connection was cut
// and the text may be partial and the tool calls incomplete.
func (w *Wire[P, E]) cut(ctx context.Context, watch *llm.Watch, resp *http.Response) error {
	if se := watch.Stalled(w.requestID(resp)); se != nil {
		return se
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	return &llm.Error{Category: llm.CategoryUnavailable, Retryable: true, RequestID: w.requestID(resp),
		Err: fmt.Errorf("%s: stream ended without %s", w.Provider, w.FinishEvent)}
}

// mapError turns an SDK or transport error into an *llm.Error, except that a
// cancelled or expired ctx is returned as ctx.Err(): the caller stopped the step,
// the provider did not fail. What the provider's APIError does not recognise is
// provider_unavailable (retryable) for a transport failure, else unknown.
func (w *Wire[P, E]) mapError(ctx context.Context, err error, resp *http.Response) error {
	if ctxErr := ctx.Err(); ctxErr != nil {
		return ctxErr
	}
	e := w.APIError(err, resp)
	if e == nil {
		e = unrecognised(err)
	}
	if e.RequestID == "" {
		e.RequestID = w.requestID(resp)
	}
	return e
}

// unrecognised maps an error no provider reads: a transport failure is
// transient, anything else unknown.
func unrecognised(err error) *llm.Error {
	if llm.IsNetworkError(err) {
		return &llm.Error{Category: llm.CategoryUnavailable, Retryable: true, Err: err}
	}
	return &llm.Error{Category: llm.CategoryUnknown, Err: err}
}

func (w *Wire[P, E]) requestID(resp *http.Response) string {
	return RequestID(resp, w.RequestIDHeader)
}

// RequestID returns the request id the provider sent in header, or "" when
// there is no response.
func RequestID(resp *http.Response, header string) string {
	if resp == nil {
		return ""
	}
	return resp.Header.Get(header)
}
