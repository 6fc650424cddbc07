package protocol

import (
	"errors"
	"fmt"
)

// Stable error codes. Clients switch on these; messages are for people.
const (
	CodeInvalidArgument = "invalid_argument"
	CodeNotFound        = "not_found"
	CodeForbidden       = "forbidden"
	CodeConflict        = "conflict"
	CodeTooLarge        = "too_large"
	CodeUnauthenticated = "unauthenticated"
	CodeRateLimited     = "rate_limited"
	CodeUnavailable     = "unavailable"
	CodeUnknownMethod   = "unknown_method"
	CodeInternal        = "internal"
)

// Error is the error shape of every method: {code, message}.
type Error struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

func (e *Error) Error() string { return e.Code + ": " + e.Message }

// Errorf builds an *Error with a formatted message.
func Errorf(code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// CodeOf returns the code of err, or CodeInternal when err carries none.
func CodeOf(err error) string {
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return CodeInternal
}

// ErrNotFound is returned for an entity the caller may not see or that does not exist;
// the two are not distinguished so ids of other users leak nothing.
func ErrNotFound(kind, id string) *Error {
	return Errorf(CodeNotFound, "%s %q not found", kind, id)
}

// codeTable gives each code its HTTP status and its Centrifuge RPC error number
// (application range 400-1999).
var codeTable = map[string][2]int{
	CodeInvalidArgument: {400, 1400},
	CodeUnauthenticated: {401, 1401},
	CodeForbidden:       {403, 1403},
	CodeNotFound:        {404, 1404},
	CodeUnknownMethod:   {404, 1405},
	CodeConflict:        {409, 1409},
	CodeTooLarge:        {413, 1413},
	CodeRateLimited:     {429, 1429},
	CodeInternal:        {500, 1500},
	CodeUnavailable:     {503, 1503},
}

// HTTPStatus is the HTTP status of an error code.
func HTTPStatus(code string) int {
	if v, ok := codeTable[code]; ok {
		return v[0]
	}
	return 500
}

// RPCCode is the Centrifuge error number of an error code.
func RPCCode(code string) uint32 {
	if v, ok := codeTable[code]; ok {
		return uint32(v[1])
	}
	return 1500
}

// CodeFromRPC maps a Centrifuge error number back to the code.
func CodeFromRPC(n uint32) string {
	for code, v := range codeTable {
		if uint32(v[1]) == n {
			return code
		}
	}
	return CodeInternal
}
