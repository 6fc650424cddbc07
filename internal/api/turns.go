package api

import (
	"context"
	"encoding/json"
	"strconv"

	"github.com/rtcagent/rtcagent/internal/core"
	"github.com/rtcagent/rtcagent/internal/lifecycle"
	"github.com/rtcagent/rtcagent/internal/protocol"
	"github.com/rtcagent/rtcagent/internal/store"
)

func (a *API) turnStop(ctx context.Context, c core.Caller, params json.RawMessage) (any, error) {
	id, err := a.sessionID(params)
	if err != nil {
		return nil, err
	}
	var t *protocol.Turn
	var closed []string
	live := a.runner.LiveText(ctx, id)
	err = a.write(ctx, func(tx store.Tx) error {
		t, closed, err = lifecycle.StopTurn(tx, c, id, live)
		return err
	})
	if err != nil {
		return nil, err
	}
	a.runner.SettlePartials(closed)
	a.runner.CancelTurn(t.ID)
	return &protocol.TurnResult{Turn: *t}, nil
}

func (a *API) turnList(ctx context.Context, c core.Caller, params json.RawMessage) (any, error) {
	req, after, err := a.seqPage(params)
	if err != nil {
		return nil, err
	}
	res := &protocol.TurnListResult{Turns: []protocol.Turn{}}
	err = a.read(ctx, func(tx store.Tx) error {
		if _, err := core.SessionFor(tx, c, req.SessionID); err != nil {
			return err
		}
		if res.Offset, err = topOffset(tx, c.UserID); err != nil {
			return err
		}
		limit := a.limit(req.Limit)
		list, err := tx.TurnList(req.SessionID, store.Page{After: after, Limit: limit})
		res.Turns = append(res.Turns, list...)
		if len(list) == limit {
			res.NextCursor = strconv.FormatInt(list[len(list)-1].Seq, 10)
		}
		return err
	})
	return res, err
}

func (a *API) turnGet(ctx context.Context, c core.Caller, params json.RawMessage) (any, error) {
	var req protocol.IDRequest
	if err := decode(params, &req); err != nil {
		return nil, err
	}
	if err := a.checkID("turn_id", req.TurnID); err != nil {
		return nil, err
	}
	var t *protocol.Turn
	err := a.read(ctx, func(tx store.Tx) error {
		var err error
		if t, err = tx.TurnGet(req.TurnID); err != nil || t.UserID != c.UserID {
			return protocol.ErrNotFound("turn", req.TurnID)
		}
		_, err = core.SessionFor(tx, c, t.SessionID)
		return err
	})
	if err != nil {
		return nil, err
	}
	return &protocol.TurnResult{Turn: *t}, nil
}

func (a *API) updateList(ctx context.Context, c core.Caller, params json.RawMessage) (any, error) {
	var req protocol.UpdateListRequest
	if err := decode(params, &req); err != nil {
		return nil, err
	}
	if req.SinceOffset < 0 || len(req.Epoch) > a.lim.IDBytes {
		return nil, protocol.Errorf(protocol.CodeInvalidArgument, "since_offset must be >= 0 and epoch at most %d bytes", a.lim.IDBytes)
	}
	res := &protocol.UpdateListResult{Updates: []protocol.Update{}}
	err := a.read(ctx, func(tx store.Tx) error {
		list, pos, err := tx.UpdateList(c.UserID, req.SinceOffset, a.limit(req.Limit), a.lim.PageBytes)
		if err != nil {
			return err
		}
		res.Epoch, res.Top = pos.Epoch, pos.Top
		// The client's position is not on this timeline, or the history it needs is gone.
		if (req.Epoch != "" && req.Epoch != pos.Epoch) || req.SinceOffset < pos.Floor || req.SinceOffset > pos.Top {
			res.Reset = true
			return nil
		}
		res.Updates = append(res.Updates, list...)
		return nil
	})
	return res, err
}
