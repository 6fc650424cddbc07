package api

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"time"

	"github.com/rtcagent/rtcagent/internal/core"
	"github.com/rtcagent/rtcagent/internal/lifecycle"
	"github.com/rtcagent/rtcagent/internal/protocol"
	"github.com/rtcagent/rtcagent/internal/store"
	"github.com/rtcagent/rtcagent/internal/tools"
)

// Runner is what the API needs from the session workers: hints and partial text.
type Runner interface {
	CancelTurn(turnID string)
	Partial(messageID string) (text string, seq int64, ok bool)
	// LiveText reads, ahead of a transaction that may end the session's
	// active turn, the text its streaming messages showed so far: no
	// transaction waits on the partial buffer.
	LiveText(ctx context.Context, sessionID string) lifecycle.Live
	// SettlePartials completes the messages a committed transaction closed
	// with the text their partial buffer holds, then drops it.
	SettlePartials(messageIDs []string)
	// Adopt claims, in tx, the sessions tx gave work, so that this process
	// starts it as soon as tx commits; the returned function (nil for none)
	// gets whether tx committed, an error fails tx. See session.Runner.Adopt.
	Adopt(tx store.Tx) (func(committed bool), error)
}

// API serves the v1 methods.
type API struct {
	store   store.Store
	runner  Runner
	lim     protocol.Limits
	log     *slog.Logger
	methods map[string]handler
	sends   *limiter
	// viewReads bounds the users' views' resource reads (v1.app.resource),
	// viewReading how many run at once.
	viewReads   *limiter
	viewReading chan struct{}
	views       tools.ViewTools // the tools views may call (ServeViews); nil for none
	viewTrace   lifecycle.Tracing
}

type handler func(ctx context.Context, c core.Caller, params json.RawMessage) (any, error)

// New builds the handler table.
func New(st store.Store, runner Runner, lim protocol.Limits, log *slog.Logger) *API {
	lim = lim.WithDefaults()
	a := &API{store: st, runner: runner, lim: lim, log: log, sends: newLimiter(lim.MessagesPerMinute, lim.MessageBurst, time.Now),
		viewReads:   newLimiter(protocol.AppResourceReadsPerMinute, protocol.AppResourceReadBurst, time.Now),
		viewReading: make(chan struct{}, protocol.AppResourceReadsAtOnce)}
	a.methods = map[string]handler{
		protocol.MethodMessageSend:     a.messageSend,
		protocol.MethodMessageList:     a.messageList,
		protocol.MethodMessageGet:      a.messageGet,
		protocol.MethodSessionList:     a.sessionList,
		protocol.MethodSessionGet:      a.sessionGet,
		protocol.MethodSessionUpdate:   a.sessionUpdate,
		protocol.MethodSessionClose:    a.sessionClose,
		protocol.MethodSessionOpen:     a.sessionOpen,
		protocol.MethodSessionDelete:   a.sessionDelete,
		protocol.MethodSessionFork:     a.sessionFork,
		protocol.MethodSessionMove:     a.sessionMove,
		protocol.MethodSessionCompact:  a.sessionCompact,
		protocol.MethodTurnStop:        a.turnStop,
		protocol.MethodTurnRetry:       a.turnRetry,
		protocol.MethodTurnList:        a.turnList,
		protocol.MethodTurnGet:         a.turnGet,
		protocol.MethodRTCUpdateStatus: a.rtcUpdateStatus,
		protocol.MethodRTCSubmitResult: a.rtcSubmitResult,
		protocol.MethodRTCList:         a.rtcList,
		protocol.MethodRTCGet:          a.rtcGet,
		protocol.MethodRTCPending:      a.rtcPending,
		protocol.MethodRTCApprove:      a.rtcApprove,
		protocol.MethodUpdateList:      a.updateList,
		protocol.MethodAuditList:       a.auditList,
		protocol.MethodAppCall:         a.appCall,
		protocol.MethodAppResource:     a.appResource,
	}
	return a
}

// Limits returns the limits in force.
func (a *API) Limits() protocol.Limits { return a.lim }

// Call runs one method and returns its JSON result. The error is always a
// *protocol.Error.
func (a *API) Call(ctx context.Context, c core.Caller, method string, params []byte) ([]byte, *protocol.Error) {
	h, ok := a.methods[method]
	if !ok {
		metricRequests.WithLabelValues("unknown", protocol.CodeUnknownMethod).Inc()
		return nil, protocol.Errorf(protocol.CodeUnknownMethod, "unknown method %q", method)
	}
	started := time.Now()
	res, perr := a.call(ctx, c, h, method, params)
	metricSeconds.WithLabelValues(method).Observe(time.Since(started).Seconds())
	code := "ok"
	if perr != nil {
		code = perr.Code
	}
	metricRequests.WithLabelValues(method, code).Inc()
	return res, perr
}

func (a *API) call(ctx context.Context, c core.Caller, h handler, method string, params []byte) ([]byte, *protocol.Error) {
	if len(params) > a.lim.RequestBytes {
		return nil, protocol.Errorf(protocol.CodeTooLarge, "request is %d bytes, more than the limit of %d", len(params), a.lim.RequestBytes)
	}
	if perr := checkCaller(c); perr != nil {
		return nil, perr
	}
	if len(params) == 0 {
		params = []byte("{}")
	}
	res, err := h(ctx, c, params)
	if err != nil {
		return nil, a.toError(method, err)
	}
	if raw, ok := res.(rawReply); ok {
		return raw, nil
	}
	out, err := json.Marshal(res)
	if err != nil {
		return nil, a.toError(method, err)
	}
	return out, nil
}

// rawReply is a reply encoded already, byte for byte as json.Marshal would
// encode it: call sends it unchecked.
type rawReply []byte

// checkCaller refuses a call without a user or with a malformed device id.
func checkCaller(c core.Caller) *protocol.Error {
	if c.UserID == "" {
		return protocol.Errorf(protocol.CodeUnauthenticated, "no user")
	}
	if c.DeviceID != "" {
		if err := protocol.ValidDeviceID(c.DeviceID); err != nil {
			return protocol.Errorf(protocol.CodeInvalidArgument, "%v", err)
		}
	}
	return nil
}

// toError is the one place where internal errors become protocol codes.
func (a *API) toError(method string, err error) *protocol.Error {
	var pe *protocol.Error
	switch {
	case errors.As(err, &pe):
		return pe
	case errors.Is(err, store.ErrConflict):
		return protocol.Errorf(protocol.CodeConflict, "the entity changed concurrently; read it again")
	case errors.Is(err, store.ErrNotFound):
		return protocol.Errorf(protocol.CodeNotFound, "not found")
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return protocol.Errorf(protocol.CodeUnavailable, "the request was cancelled")
	}
	a.log.Error("method failed", "method", method, "err", err)
	return protocol.Errorf(protocol.CodeInternal, "internal error")
}

// decode reads params into v; malformed JSON is invalid_argument.
func decode(params json.RawMessage, v any) error {
	if err := json.Unmarshal(params, v); err != nil {
		return protocol.Errorf(protocol.CodeInvalidArgument, "params: %v", err)
	}
	return nil
}

// checkID validates a required id field.
func (a *API) checkID(name, v string) error {
	if v == "" {
		return protocol.Errorf(protocol.CodeInvalidArgument, "%s is required", name)
	}
	if len(v) > a.lim.IDBytes {
		return protocol.Errorf(protocol.CodeInvalidArgument, "%s longer than %d bytes", name, a.lim.IDBytes)
	}
	return nil
}

// limit bounds a page size.
func (a *API) limit(n int) int {
	if n <= 0 || n > a.lim.ListLimit {
		return a.lim.ListLimit
	}
	return n
}

// write runs fn in a write transaction.
// The sessions the transaction gives work are claimed in it for this process's
// runner (Adopt), saving the claim a transaction of its own.
func (a *API) write(ctx context.Context, fn func(tx store.Tx) error) error {
	var adopted func(committed bool)
	err := a.store.Write(ctx, func(tx store.Tx) error {
		if adopted != nil { // fn runs again (a retried transaction): those did not commit
			adopted(false)
			adopted = nil
		}
		if err := fn(tx); err != nil {
			return err
		}
		var err error
		adopted, err = a.runner.Adopt(tx)
		return err
	})
	if adopted != nil {
		adopted(err == nil)
	}
	return err
}

// read runs fn in a read transaction.
func (a *API) read(ctx context.Context, fn func(tx store.Tx) error) error {
	return a.store.Read(ctx, fn)
}
