package api

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"strings"
	"testing"

	"github.com/rtcagent/rtcagent/internal/core"
	"github.com/rtcagent/rtcagent/internal/protocol"
	"github.com/rtcagent/rtcagent/internal/store"
	"github.com/rtcagent/rtcagent/internal/testkit/testsvc"
)

// TestSubmitResultRequiresOK: a result without "ok" (or with null) is refused
// with invalid_argument before anything is looked up; with ok it goes on to the
// RTC (here unknown: not_found).
func TestSubmitResultRequiresOK(t *testing.T) {
	a, _ := newTestAPI(t)
	c := core.Caller{UserID: "alice", DeviceID: "d"}
	for _, params := range []string{
		`{"rtc_id":"r","client_id":"c","output":"done"}`,
		`{"rtc_id":"r","client_id":"c","ok":null,"output":"done"}`,
		`{"rtc_id":"r","client_id":"c","error":"failed"}`,
	} {
		_, perr := a.Call(context.Background(), c, protocol.MethodRTCSubmitResult, []byte(params))
		if perr == nil || perr.Code != protocol.CodeInvalidArgument || !strings.Contains(perr.Message, "ok is required") {
			t.Errorf("%s: %+v, want invalid_argument: ok is required", params, perr)
		}
	}
	for _, params := range []string{`{"rtc_id":"r","client_id":"c","ok":true,"output":"done"}`, `{"rtc_id":"r","client_id":"c","ok":false,"error":"x"}`} {
		_, perr := a.Call(context.Background(), c, protocol.MethodRTCSubmitResult, []byte(params))
		if perr == nil || perr.Code != protocol.CodeNotFound {
			t.Errorf("%s: %+v, want not_found", params, perr)
		}
	}
}

// newTestAPI is the API over a fresh SQLite store with no session workers.
func newTestAPI(t *testing.T) (*API, store.Store) {
	t.Helper()
	st := testsvc.SQLite(t)
	return New(st, idleRunner{}, protocol.Limits{}, slog.New(slog.NewTextHandler(io.Discard, nil))), st
}

// callAs calls a method as c with req encoded as its params.
func callAs(a *API, c core.Caller, method string, req any) (json.RawMessage, *protocol.Error) {
	raw, _ := json.Marshal(req)
	return a.Call(context.Background(), c, method, raw)
}
