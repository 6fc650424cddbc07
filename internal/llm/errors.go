package llm

import (
	"errors"
	"io"
	"net"
	"net/http"
	"strings"
)

// Error categories.
const (
	CategoryUnavailable   = "provider_unavailable"
	CategoryRateLimited   = "rate_limited"
	CategoryAuth          = "auth"
	CategoryContextLength = "context_length"
	CategoryInvalid       = "invalid_request"
	CategoryUnknown       = "unknown"
)

// StatusError classifies a provider's HTTP error status the same way for every
// provider: 429 and 5xx/408 are transient, 401/403 are credentials, 413 or a 400
// saying the input is too long is the context, other 4xx are the request.
func StatusError(status int, message string) *Error {
	var e *Error
	switch {
	case status == http.StatusTooManyRequests:
		e = &Error{Category: CategoryRateLimited, Retryable: true}
	case status == http.StatusRequestTimeout, status >= 500: // 529 is Anthropic's "overloaded"
		e = &Error{Category: CategoryUnavailable, Retryable: true}
	case status == http.StatusUnauthorized, status == http.StatusForbidden:
		e = &Error{Category: CategoryAuth}
	case status == http.StatusRequestEntityTooLarge, status == http.StatusBadRequest && TooLong(message):
		e = &Error{Category: CategoryContextLength}
	default:
		e = &Error{Category: CategoryInvalid}
	}
	e.Status = status
	return e
}

// TooLong reports whether a provider's error message says the input does not fit
// the model's context, as "prompt is too long: N tokens > M maximum" or "maximum
// context length is N tokens" do.
func TooLong(message string) bool {
	lower := strings.ToLower(message)
	return strings.Contains(lower, "too long") || strings.Contains(lower, "context")
}

// IsNetworkError reports a transport failure (connection refused or cut, a stream
// ended early): transient for every provider.
func IsNetworkError(err error) bool {
	var netErr net.Error
	return errors.As(err, &netErr) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) ||
		errors.Is(err, net.ErrClosed)
}
