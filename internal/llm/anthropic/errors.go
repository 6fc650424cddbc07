package anthropic

import (
	"errors"
	"net/http"

	sdk "github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/shared"

	"github.com/rtcagent/rtcagent/internal/llm"
)

// apiError classifies the SDK's *sdk.Error: by HTTP status, or for an error
// event inside a started stream by the error's type. Other errors are left to
// the shared mapping.
func apiError(err error, _ *http.Response) *llm.Error {
	var apiErr *sdk.Error
	if !errors.As(err, &apiErr) {
		return nil
	}
	var e *llm.Error
	if apiErr.StatusCode >= 400 {
		e = llm.StatusError(apiErr.StatusCode, apiErr.Message)
	} else {
		// An error event inside a started stream: the HTTP status was 200.
		e = byType(apiErr.Type(), apiErr.Message)
	}
	e.RequestID, e.Err = apiErr.RequestID, err
	return e
}

func byType(typ shared.ErrorType, message string) *llm.Error {
	switch typ {
	case shared.ErrorTypeRateLimitError:
		return &llm.Error{Category: llm.CategoryRateLimited, Retryable: true}
	case shared.ErrorTypeAuthenticationError, shared.ErrorTypePermissionError, shared.ErrorTypeBillingError:
		return &llm.Error{Category: llm.CategoryAuth}
	case shared.ErrorTypeInvalidRequestError:
		// "prompt is too long: N tokens > M maximum" and similar.
		if llm.TooLong(message) {
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
