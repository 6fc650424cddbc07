package api

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/rtcagent/rtcagent/internal/core"
	"github.com/rtcagent/rtcagent/internal/lifecycle"
	"github.com/rtcagent/rtcagent/internal/protocol"
	"github.com/rtcagent/rtcagent/internal/store"
)

func (a *API) sessionList(ctx context.Context, c core.Caller, params json.RawMessage) (any, error) {
	var req protocol.ListRequest
	if err := decode(params, &req); err != nil {
		return nil, err
	}
	if len(req.Cursor) > a.lim.IDBytes {
		return nil, protocol.Errorf(protocol.CodeInvalidArgument, "cursor is not valid")
	}
	limit := a.limit(req.Limit)
	res := &protocol.SessionListResult{Sessions: []protocol.Session{}}
	err := a.read(ctx, func(tx store.Tx) error {
		var err error
		if res.Offset, err = topOffset(tx, c.UserID); err != nil {
			return err
		}
		list, err := tx.SessionList(c.UserID, req.Cursor, limit)
		if err != nil {
			return err
		}
		for _, s := range list {
			if !s.Deleted {
				res.Sessions = append(res.Sessions, s)
			}
		}
		if len(list) == limit {
			res.NextCursor = list[len(list)-1].ID
		}
		return nil
	})
	return res, err
}

func (a *API) sessionGet(ctx context.Context, c core.Caller, params json.RawMessage) (any, error) {
	id, err := a.sessionID(params)
	if err != nil {
		return nil, err
	}
	var s *protocol.Session
	err = a.read(ctx, func(tx store.Tx) error {
		s, err = core.SessionFor(tx, c, id)
		return err
	})
	if err != nil {
		return nil, err
	}
	return &protocol.SessionResult{Session: *s}, nil
}

func (a *API) sessionID(params json.RawMessage) (string, error) {
	var req protocol.IDRequest
	if err := decode(params, &req); err != nil {
		return "", err
	}
	return req.SessionID, a.checkID("session_id", req.SessionID)
}

func (a *API) sessionUpdate(ctx context.Context, c core.Caller, params json.RawMessage) (any, error) {
	var req protocol.SessionUpdateRequest
	if err := decode(params, &req); err != nil {
		return nil, err
	}
	if err := a.checkID("session_id", req.SessionID); err != nil {
		return nil, err
	}
	if req.Title != nil && (len(*req.Title) > a.lim.TitleBytes || *req.Title == "") {
		return nil, protocol.Errorf(protocol.CodeInvalidArgument, "title must be 1-%d bytes", a.lim.TitleBytes)
	}
	if req.WorkMode != nil && !protocol.ValidWorkMode(*req.WorkMode) {
		return nil, protocol.Errorf(protocol.CodeInvalidArgument, "work_mode %q: one of manual, edit, plan, bypass", *req.WorkMode)
	}
	if req.WorkMode != nil {
		if err := c.CheckMode(*req.WorkMode); err != nil {
			return nil, err
		}
	}
	if len(req.RevokeApprovals) > maxRevokeApprovals {
		return nil, protocol.Errorf(protocol.CodeTooLarge, "revoke_approvals: at most %d tool names", maxRevokeApprovals)
	}
	for i, n := range req.RevokeApprovals {
		if n == "" || len(n) > maxToolNameBytes {
			return nil, protocol.Errorf(protocol.CodeInvalidArgument, "revoke_approvals[%d]: a tool name of 1-%d bytes", i, maxToolNameBytes)
		}
	}
	return a.changeSession(ctx, c, req.SessionID, false, func(s *protocol.Session) {
		lifecycle.RevokeApprovals(s, req.RevokeApprovals)
		if req.Title != nil {
			s.Title = *req.Title
		}
		if req.WorkMode != nil {
			s.WorkMode = *req.WorkMode
		}
	})
}

// changeSession applies change to a session and emits session.updated. Closing or
// deleting a session first stops its running turn and ends its queued ones; ends
// says the change may do so (the streaming text is then read ahead).
func (a *API) changeSession(ctx context.Context, c core.Caller, id string, ends bool, change func(s *protocol.Session)) (any, error) {
	var s *protocol.Session
	var stopped string
	var closed []string
	var live lifecycle.Live
	if ends {
		live = a.runner.LiveText(ctx, id)
	}
	err := a.write(ctx, func(tx store.Tx) error {
		stopped, closed = "", nil // a retried transaction starts over
		var err error
		if s, err = core.SessionFor(tx, c, id); err != nil {
			return err
		}
		probe := *s
		change(&probe)
		if probe.Deleted || probe.Status == protocol.SessionClosed {
			// Nothing of a closed or deleted chat runs on: its active turn stops
			// and the turns queued behind it end, in this transaction.
			if stopped, closed, err = lifecycle.StopSession(tx, c, s, live, "cancelled: the user stopped the turn"); err != nil {
				return err
			}
			if s, err = tx.SessionGet(id); err != nil {
				return err
			}
		}
		change(s)
		return core.EmitSession(tx, s, protocol.UpdSessionUpdated)
	})
	if err != nil {
		return nil, err
	}
	a.runner.SettlePartials(closed)
	if stopped != "" {
		a.runner.CancelTurn(stopped)
	}
	return &protocol.SessionResult{Session: *s}, nil
}

// sessionMove moves a session to the calling device (core.MoveSession).
func (a *API) sessionMove(ctx context.Context, c core.Caller, params json.RawMessage) (any, error) {
	id, err := a.sessionID(params)
	if err != nil {
		return nil, err
	}
	var s *protocol.Session
	err = a.write(ctx, func(tx store.Tx) error {
		var err error
		s, err = core.MoveSession(tx, c, id)
		return err
	})
	if err != nil {
		return nil, err
	}
	return &protocol.SessionResult{Session: *s}, nil
}

func (a *API) sessionClose(ctx context.Context, c core.Caller, params json.RawMessage) (any, error) {
	return a.setSessionStatus(ctx, c, params, protocol.SessionClosed)
}

func (a *API) sessionOpen(ctx context.Context, c core.Caller, params json.RawMessage) (any, error) {
	return a.setSessionStatus(ctx, c, params, protocol.SessionOpen)
}

func (a *API) setSessionStatus(ctx context.Context, c core.Caller, params json.RawMessage, status string) (any, error) {
	id, err := a.sessionID(params)
	if err != nil {
		return nil, err
	}
	return a.changeSession(ctx, c, id, status == protocol.SessionClosed, func(s *protocol.Session) { s.Status = status })
}

func (a *API) sessionDelete(ctx context.Context, c core.Caller, params json.RawMessage) (any, error) {
	id, err := a.sessionID(params)
	if err != nil {
		return nil, err
	}
	return a.changeSession(ctx, c, id, true, func(s *protocol.Session) { s.Deleted = true })
}

func (a *API) sessionFork(ctx context.Context, c core.Caller, params json.RawMessage) (any, error) {
	var req protocol.SessionForkRequest
	if err := decode(params, &req); err != nil {
		return nil, err
	}
	for _, f := range [][2]string{{"client_id", req.ClientID}, {"session_id", req.SessionID}, {"message_id", req.MessageID}} {
		if err := a.checkID(f[0], f[1]); err != nil {
			return nil, err
		}
	}
	if len(req.Text) > a.lim.MessageTextBytes {
		return nil, protocol.Errorf(protocol.CodeTooLarge, "text is %d bytes, more than the limit of %d", len(req.Text), a.lim.MessageTextBytes)
	}
	if err := a.allowSend(c); err != nil {
		return nil, err
	}
	var res *protocol.MessageSendResult
	fork := func(tx store.Tx) error {
		var err error
		res, err = core.ForkSession(tx, c, &req)
		return err
	}
	err := a.write(ctx, fork)
	if errors.Is(err, store.ErrDuplicate) {
		// A concurrent fork with the same client_id committed first: this one
		// now finds it and answers with its result.
		err = a.write(ctx, fork)
	}
	return res, err
}

// Bounds of v1.session.update's revoke_approvals: a host tool name is at most 64
// bytes, and a session offers at most the built-ins and 64 host tools.
const (
	maxRevokeApprovals = 128
	maxToolNameBytes   = 64
)
