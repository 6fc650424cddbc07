package anthropic

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"strings"

	sdk "github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/shared"

	"github.com/rtcagent/rtcagent/internal/llm"
)

// mapError turns an SDK or transport error into an *llm.Error, except that a
// cancelled or expired ctx is returned as ctx.Err(): the caller stopped the step,
// the provider did not fail.
func mapError(ctx context.Context, err error, resp *http.Response) error {
	if ctxErr := ctx.Err(); ctxErr != nil {
		return ctxErr
	}
	var apiErr *sdk.Error
	if errors.As(err, &apiErr) {
		var e *llm.Error
		if apiErr.StatusCode >= 400 {
			e = byStatus(apiErr.StatusCode, apiErr.Message)
			e.Status = apiErr.StatusCode
		} else {
			// An error event inside a started stream: the HTTP status was 200.
			e = byType(apiErr.Type(), apiErr.Message)
		}
		e.RequestID, e.Err = apiErr.RequestID, err
		if e.RequestID == "" {
			e.RequestID = requestID(resp)
		}
		return e
	}
	if isNetworkError(err) {
		return &llm.Error{Category: "provider_unavailable", Retryable: true, RequestID: requestID(resp), Err: err}
	}
	return &llm.Error{Category: "unknown", RequestID: requestID(resp), Err: err}
}

func byStatus(status int, message string) *llm.Error {
	switch {
	case status == http.StatusTooManyRequests:
		return &llm.Error{Category: "rate_limited", Retryable: true}
	case status == http.StatusRequestTimeout, status >= 500: // 529 is "overloaded"
		return &llm.Error{Category: "provider_unavailable", Retryable: true}
	case status == http.StatusUnauthorized, status == http.StatusForbidden:
		return &llm.Error{Category: "auth"}
	case status == http.StatusBadRequest && tooLong(message), status == http.StatusRequestEntityTooLarge:
		return &llm.Error{Category: "context_length"}
	}
	return &llm.Error{Category: "invalid_request"}
}

func byType(typ shared.ErrorType, message string) *llm.Error {
	switch typ {
	case shared.ErrorTypeRateLimitError:
		return &llm.Error{Category: "rate_limited", Retryable: true}
	case shared.ErrorTypeAuthenticationError, shared.ErrorTypePermissionError, shared.ErrorTypeBillingError:
		return &llm.Error{Category: "auth"}
	case shared.ErrorTypeInvalidRequestError:
		if tooLong(message) {
			return &llm.Error{Category: "context_length"}
		}
		return &llm.Error{Category: "invalid_request"}
	case shared.ErrorTypeNotFoundError:
		return &llm.Error{Category: "invalid_request"}
	}
	// overloaded_error, api_error, timeout_error and types added later are
	// transient failures of a stream that had started fine.
	return &llm.Error{Category: "provider_unavailable", Retryable: true}
}

// tooLong recognises "prompt is too long: N tokens > M maximum" and similar.
func tooLong(message string) bool {
	m := strings.ToLower(message)
	return strings.Contains(m, "too long") || strings.Contains(m, "context")
}

func requestID(resp *http.Response) string {
	if resp == nil {
		return ""
	}
	return resp.Header.Get("request-id")
}

func isNetworkError(err error) bool {
	var netErr net.Error
	return errors.As(err, &netErr) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) ||
		errors.Is(err, net.ErrClosed)
}
