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
			writeError(w, protocol.Errorf(protocol.CodeInvalidArgument, "use POST"))
			return
		}
		tok, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		if !ok {
			writeError(w, protocol.Errorf(protocol.CodeUnauthenticated, "missing bearer token"))
			return
		}
		claims, err := v.Verify(tok)
		if err != nil {
			writeError(w, protocol.Errorf(protocol.CodeUnauthenticated, "%v", err))
			return
		}
		body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, int64(a.lim.RequestBytes)))
		if err != nil {
			var mbe *http.MaxBytesError
			if errors.As(err, &mbe) {
				writeError(w, protocol.Errorf(protocol.CodeTooLarge, "request larger than %d bytes", a.lim.RequestBytes))
				return
			}
			writeError(w, protocol.Errorf(protocol.CodeInvalidArgument, "read body: %v", err))
			return
		}
		caller := core.Caller{UserID: claims.UserID, DeviceID: r.Header.Get(DeviceHeader), Modes: claims.Modes}
		res, perr := a.Call(r.Context(), caller, method, body)
		if perr != nil {
			writeError(w, perr)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(res)
	})
}

func writeError(w http.ResponseWriter, e *protocol.Error) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(protocol.HTTPStatus(e.Code))
	_ = json.NewEncoder(w).Encode(map[string]*protocol.Error{"error": e})
}
