package api

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"testing"

	"github.com/rtcagent/rtcagent/internal/core"
	"github.com/rtcagent/rtcagent/internal/lifecycle"
	"github.com/rtcagent/rtcagent/internal/protocol"
	"github.com/rtcagent/rtcagent/internal/store"
)

func (a *API) rtcUpdateStatus(ctx context.Context, c core.Caller, params json.RawMessage) (any, error) {
	var req protocol.RTCUpdateStatusRequest
	if err := decode(params, &req); err != nil {
		return nil, err
	}
	if err := a.checkRTCIDs(req.RTCID, req.ClientID); err != nil {
		return nil, err
	}
	switch req.Status {
	case protocol.RTCSent, protocol.RTCExecuting, protocol.RTCRejected:
	default:
		return nil, protocol.Errorf(protocol.CodeInvalidArgument, "status %q: one of sent, executing, rejected", req.Status)
	}
	if len(req.Reason) > a.lim.ToolResultBytes {
		return nil, protocol.Errorf(protocol.CodeTooLarge, "reason longer than %d bytes", a.lim.ToolResultBytes)
	}
	if ap := req.Approval; ap != nil {
		switch {
		case req.Status == protocol.RTCSent:
			return nil, protocol.Errorf(protocol.CodeInvalidArgument, "approval goes with status executing (allowed) or rejected (denied)")
		case ap.Scope != "" && ap.Scope != protocol.ScopeOnce && ap.Scope != protocol.ScopeSession:
			return nil, protocol.Errorf(protocol.CodeInvalidArgument, "approval.scope %q: once or session", ap.Scope)
		case ap.Scope == protocol.ScopeSession && req.Status != protocol.RTCExecuting:
			return nil, protocol.Errorf(protocol.CodeInvalidArgument, "approval.scope session allows a tool; a denial is once")
		case len(ap.Reason) > maxDecisionReasonBytes:
			return nil, protocol.Errorf(protocol.CodeTooLarge, "approval.reason longer than %d bytes", maxDecisionReasonBytes)
		}
	}
	return a.rtcChange(ctx, 1, func(tx store.Tx) (*protocol.RTC, error) { return lifecycle.UpdateRTCStatus(tx, c, &req) })
}

func (a *API) rtcApprove(ctx context.Context, c core.Caller, params json.RawMessage) (any, error) {
	var req protocol.RTCApproveRequest
	if err := decode(params, &req); err != nil {
		return nil, err
	}
	if err := a.checkRTCIDs(req.RTCID, req.ClientID); err != nil {
		return nil, err
	}
	if ap := req.Approval; ap != nil {
		switch {
		case ap.Scope != "" && ap.Scope != protocol.ScopeOnce && ap.Scope != protocol.ScopeSession:
			return nil, protocol.Errorf(protocol.CodeInvalidArgument, "approval.scope %q: once or session", ap.Scope)
		case ap.Reason != "":
			return nil, protocol.Errorf(protocol.CodeInvalidArgument, "approval.reason goes with a denial (update_status rejected)")
		}
	}
	return a.rtcChange(ctx, 1, func(tx store.Tx) (*protocol.RTC, error) { return lifecycle.ApproveRTC(tx, c, &req) })
}

func (a *API) rtcSubmitResult(ctx context.Context, c core.Caller, params json.RawMessage) (any, error) {
	var req protocol.RTCSubmitResultRequest
	if err := decode(params, &req); err != nil {
		return nil, err
	}
	if err := a.checkRTCIDs(req.RTCID, req.ClientID); err != nil {
		return nil, err
	}
	if err := requireOK(params); err != nil {
		return nil, err
	}
	if len(req.Error) > a.lim.RequestBytes {
		return nil, protocol.Errorf(protocol.CodeTooLarge, "error longer than %d bytes", a.lim.RequestBytes)
	}
	if req.OK && len(req.Output) > 0 && !json.Valid(req.Output) {
		return nil, protocol.Errorf(protocol.CodeInvalidArgument, "output must be JSON")
	}
	if err := checkExecution(req.Execution); err != nil {
		return nil, err
	}
	// A submission that loses the compare-and-set to a concurrent one (another
	// tab, a retry racing the original; possible where transactions run in
	// parallel, as on PostgreSQL) runs again and answers with the stored outcome.
	return a.rtcChange(ctx, submitAttempts, func(tx store.Tx) (*protocol.RTC, error) { return lifecycle.SubmitResult(tx, c, &req) })
}

// checkRTCIDs checks the ids of a request that changes an RTC.
func (a *API) checkRTCIDs(rtcID, clientID string) error {
	if err := a.checkID("rtc_id", rtcID); err != nil {
		return err
	}
	return a.checkID("client_id", clientID)
}

// rtcChange runs change in a write transaction, up to attempts times while it
// loses a compare-and-set (store.ErrConflict), and answers with the RTC it
// returned: as the transaction's Topic change carries it when it changed it
// (sentAs), encoded anew otherwise.
func (a *API) rtcChange(ctx context.Context, attempts int, change func(tx store.Tx) (*protocol.RTC, error)) (any, error) {
	var r *protocol.RTC
	var sent []byte
	var err error
	for attempt := 1; ; attempt++ {
		err = a.write(ctx, func(tx store.Tx) error {
			var err error
			if r, err = change(tx); err == nil {
				sent, err = sentAs(tx, r)
			}
			return err
		})
		if !errors.Is(err, store.ErrConflict) || attempt >= attempts {
			break
		}
	}
	if err != nil {
		return nil, err
	}
	if sent != nil {
		return rtcResult(sent), nil
	}
	return &protocol.RTCResult{RTC: *r}, nil
}

// sentAs is r as the transaction's Topic update carries it (the JSON its
// store encoded with its row), or nil when the transaction did not change r
// (a repeated result). In tests it fails when that is not r's encoding.
func sentAs(tx store.Tx, r *protocol.RTC) ([]byte, error) {
	u, ok := tx.UpdateOpen(r.UserID)
	if !ok {
		return nil, nil
	}
	for _, ch := range u.Changes {
		if v, ok := ch.Value.(*protocol.RTC); ok && v.ID == r.ID {
			if testing.Testing() {
				if want, err := r.MarshalJSON(); err != nil || !bytes.Equal(want, ch.Data) {
					return nil, fmt.Errorf("api: rtc %s changed after its Topic change: sent as %s, now %s (%v)", r.ID, ch.Data, want, err)
				}
			}
			return ch.Data, nil
		}
	}
	return nil, nil
}

// rtcResult is protocol.RTCResult encoded around the RTC's JSON as its store
// encoded it (RTC.MarshalJSON's output: compact and escaped as json.Marshal
// writes it), so call sends it as it is.
func rtcResult(rtc []byte) rawReply {
	out := make([]byte, 0, len(rtc)+8)
	out = append(out, `{"rtc":`...)
	out = append(out, rtc...)
	return append(out, '}')
}

// maxDecisionReasonBytes bounds the reason a person types for a denial.
const maxDecisionReasonBytes = 4096

// submitAttempts bounds the runs of one submission that keeps losing races.
const submitAttempts = 4

func (a *API) rtcList(ctx context.Context, c core.Caller, params json.RawMessage) (any, error) {
	var req protocol.ListRequest
	if err := decode(params, &req); err != nil {
		return nil, err
	}
	if err := a.checkID("session_id", req.SessionID); err != nil {
		return nil, err
	}
	if len(req.Cursor) > a.lim.IDBytes {
		return nil, protocol.Errorf(protocol.CodeInvalidArgument, "cursor is not valid")
	}
	limit := a.limit(req.Limit)
	res := &protocol.RTCListResult{RTCs: []protocol.RTC{}}
	err := a.read(ctx, func(tx store.Tx) error {
		if _, err := core.SessionFor(tx, c, req.SessionID); err != nil {
			return err
		}
		var err error
		if res.Offset, err = topOffset(tx, c.UserID); err != nil {
			return err
		}
		list, err := tx.RTCListBySession(req.SessionID, req.Cursor, limit)
		res.RTCs = append(res.RTCs, list...)
		if len(list) == limit {
			res.NextCursor = list[len(list)-1].ID
		}
		return err
	})
	return res, err
}

func (a *API) rtcGet(ctx context.Context, c core.Caller, params json.RawMessage) (any, error) {
	var req protocol.IDRequest
	if err := decode(params, &req); err != nil {
		return nil, err
	}
	if err := a.checkID("rtc_id", req.RTCID); err != nil {
		return nil, err
	}
	var r *protocol.RTC
	err := a.read(ctx, func(tx store.Tx) error {
		var err error
		if r, err = tx.RTCGet(req.RTCID); err != nil || r.UserID != c.UserID {
			return protocol.ErrNotFound("rtc", req.RTCID)
		}
		_, err = core.SessionFor(tx, c, r.SessionID)
		return err
	})
	if err != nil {
		return nil, err
	}
	return &protocol.RTCResult{RTC: *r}, nil
}

// rtcPending lists the open RTCs of the caller's device, for re-delivery after a
// reconnect or reload.
func (a *API) rtcPending(ctx context.Context, c core.Caller, _ json.RawMessage) (any, error) {
	res := &protocol.RTCListResult{RTCs: []protocol.RTC{}}
	err := a.read(ctx, func(tx store.Tx) error {
		var err error
		if res.Offset, err = topOffset(tx, c.UserID); err != nil {
			return err
		}
		list, err := tx.RTCListOpenByUser(c.UserID, a.lim.ListLimit)
		if err != nil {
			return err
		}
		mine := map[string]bool{}
		for _, r := range list {
			ok, seen := mine[r.SessionID]
			if !seen {
				_, err := core.SessionForDevice(tx, c, r.SessionID)
				ok = err == nil
				mine[r.SessionID] = ok
			}
			if ok {
				res.RTCs = append(res.RTCs, r)
			}
		}
		return nil
	})
	return res, err
}

// requireOK refuses a result without "ok": a missing flag would otherwise read as
// a failure, and the model would be told the tool failed when it may have run.
func requireOK(params json.RawMessage) error {
	var present struct {
		OK *bool `json:"ok"`
	}
	if json.Unmarshal(params, &present) != nil || present.OK == nil {
		return protocol.Errorf(protocol.CodeInvalidArgument, "ok is required: true with output, or false with error")
	}
	return nil
}
