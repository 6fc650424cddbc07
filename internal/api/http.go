package api

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"

	"github.com/rtcagent/rtcagent/internal/auth"
	"github.com/rtcagent/rtcagent/internal/core"
	"github.com/rtcagent/rtcagent/internal/protocol"
)

// DeviceHeader carries the device id of an HTTP caller.
const DeviceHeader = "X-Device-Id"

// HTTPHandler serves POST /api/v1/rpc/<method> with "Authorization: Bearer <jwt>".
// Success is 200 with the method's result; failure is the code's HTTP status with
// {"error": {"code", "message"}}.
func (a *API) HTTPHandler(v *auth.Verifier) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		method := strings.TrimPrefix(r.URL.Path, "/api/v1/rpc/")
		if r.Method != http.MethodPost {
			WriteError(w, protocol.Errorf(protocol.CodeInvalidArgument, "use POST"))
			return
		}
		_, caller, perr := Authenticate(r, v, "")
		if perr != nil {
			WriteError(w, perr)
			return
		}
		body, perr := ReadBody(w, r, a.lim.RequestBytes)
		if perr != nil {
			WriteError(w, perr)
			return
		}
		res, perr := a.Call(r.Context(), caller, method, body)
		if perr != nil {
			WriteError(w, perr)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(res)
	})
}

// Authenticate reads a request's bearer token and X-Device-Id (device when
// it has none): the token and the caller it names.
func Authenticate(r *http.Request, v *auth.Verifier, device string) (string, core.Caller, *protocol.Error) {
	tok, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	if !ok {
		return "", core.Caller{}, protocol.Errorf(protocol.CodeUnauthenticated, "missing bearer token")
	}
	claims, err := v.Verify(tok)
	if err != nil {
		return "", core.Caller{}, protocol.Errorf(protocol.CodeUnauthenticated, "%v", err)
	}
	if d := r.Header.Get(DeviceHeader); d != "" {
		device = d
	}
	return tok, core.Caller{UserID: claims.UserID, DeviceID: device, Modes: claims.Modes}, nil
}

// ReadBody reads a request's body of at most limit bytes (too_large beyond).
func ReadBody(w http.ResponseWriter, r *http.Request, limit int) ([]byte, *protocol.Error) {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, int64(limit)))
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return nil, protocol.Errorf(protocol.CodeTooLarge, "request larger than %d bytes", limit)
		}
		return nil, protocol.Errorf(protocol.CodeInvalidArgument, "read body: %v", err)
	}
	return body, nil
}

// WriteError answers a request with e: its code's HTTP status and
// {"error": {"code", "message"}}.
func WriteError(w http.ResponseWriter, e *protocol.Error) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(protocol.HTTPStatus(e.Code))
	_ = json.NewEncoder(w).Encode(map[string]*protocol.Error{"error": e})
}
