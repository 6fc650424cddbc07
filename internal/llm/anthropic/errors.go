package anthropic

import (
	"context"
	"errors"
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
			e = llm.StatusError(apiErr.StatusCode, apiErr.Message)
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
	if llm.IsNetworkError(err) {
		return &llm.Error{Category: llm.CategoryUnavailable, Retryable: true, RequestID: requestID(resp), Err: err}
	}
	return &llm.Error{Category: llm.CategoryUnknown, RequestID: requestID(resp), Err: err}
}

func byType(typ shared.ErrorType, message string) *llm.Error {
	switch typ {
	case shared.ErrorTypeRateLimitError:
		return &llm.Error{Category: llm.CategoryRateLimited, Retryable: true}
	case shared.ErrorTypeAuthenticationError, shared.ErrorTypePermissionError, shared.ErrorTypeBillingError:
		return &llm.Error{Category: llm.CategoryAuth}
	case shared.ErrorTypeInvalidRequestError:
		if tooLong(message) {
			return &llm.Error{Category: llm.CategoryContextLength}
		}
		return &llm.Error{Category: llm.CategoryInvalid}
	case shared.ErrorTypeNotFoundError:
		return &llm.Error{Category: llm.CategoryInvalid}
	}
	// overloaded_error, api_error, timeout_error and types added later are
	// transient failures of a stream that had started fine.
	return &llm.Error{Category: llm.CategoryUnavailable, Retryable: true}
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
