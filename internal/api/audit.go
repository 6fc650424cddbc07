package api

import (
	"context"
	"encoding/json"

	"github.com/rtcagent/rtcagent/internal/core"
	"github.com/rtcagent/rtcagent/internal/protocol"
	"github.com/rtcagent/rtcagent/internal/store"
)

// auditList lists the audit records of the caller's calls: of one session or of
// all their sessions, oldest first.
func (a *API) auditList(ctx context.Context, c core.Caller, params json.RawMessage) (any, error) {
	var req protocol.AuditListRequest
	if err := decode(params, &req); err != nil {
		return nil, err
	}
	if len(req.SessionID) > a.lim.IDBytes {
		return nil, protocol.Errorf(protocol.CodeInvalidArgument, "session_id longer than %d bytes", a.lim.IDBytes)
	}
	if len(req.Cursor) > a.lim.IDBytes {
		return nil, protocol.Errorf(protocol.CodeInvalidArgument, "cursor is not valid")
	}
	q := store.AuditQuery{UserID: c.UserID, SessionID: req.SessionID, AfterRTC: req.Cursor, Limit: a.limit(req.Limit)}
	if req.Since != nil {
		q.Since = *req.Since
	}
	res := &protocol.AuditListResult{Records: []protocol.AuditRecord{}}
	err := a.read(ctx, func(tx store.Tx) error {
		if req.SessionID != "" {
			if _, err := core.SessionFor(tx, c, req.SessionID); err != nil {
				return err
			}
		}
		list, err := tx.AuditList(q)
		res.Records = append(res.Records, list...)
		if len(list) == q.Limit {
			res.NextCursor = list[len(list)-1].RTCID
		}
		return err
	})
	return res, err
}

// checkExecution refuses a browser execution report that is not one: both times
// are required and the outcome is one of ok, error, rejected. The times are
// clamped to the server's view of the call when stored.
func checkExecution(e *protocol.RTCExecution) error {
	if e == nil {
		return nil
	}
	if e.StartedAt.IsZero() || e.EndedAt.IsZero() {
		return protocol.Errorf(protocol.CodeInvalidArgument, "execution needs started_at and ended_at")
	}
	switch e.Outcome {
	case "ok", "error", "rejected":
	default:
		return protocol.Errorf(protocol.CodeInvalidArgument, "execution outcome %q: one of ok, error, rejected", e.Outcome)
	}
	return nil
}
