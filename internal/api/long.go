package api

import (
	"context"
	"encoding/json"
	"unicode/utf8"

	"github.com/rtcagent/rtcagent/internal/core"
	"github.com/rtcagent/rtcagent/internal/protocol"
	"github.com/rtcagent/rtcagent/internal/store"
)

// The methods of long sessions: compaction on request and the retry of a failed
// turn. Both queue a turn that runs like any other.

func (a *API) sessionCompact(ctx context.Context, c core.Caller, params json.RawMessage) (any, error) {
	var req protocol.SessionCompactRequest
	if err := decode(params, &req); err != nil {
		return nil, err
	}
	if err := a.checkID("session_id", req.SessionID); err != nil {
		return nil, err
	}
	switch {
	case len(req.Instruction) > a.lim.InstructionBytes:
		return nil, protocol.Errorf(protocol.CodeTooLarge, "instruction is %d bytes, more than the limit of %d", len(req.Instruction), a.lim.InstructionBytes)
	case !utf8.ValidString(req.Instruction):
		return nil, protocol.Errorf(protocol.CodeInvalidArgument, "instruction must be UTF-8")
	}
	if err := a.allowSend(c); err != nil {
		return nil, err
	}
	var res *protocol.TurnStartResult
	err := a.write(ctx, func(tx store.Tx) error {
		var err error
		res, err = core.CompactSession(tx, c, &req)
		return err
	})
	return res, err
}

func (a *API) turnRetry(ctx context.Context, c core.Caller, params json.RawMessage) (any, error) {
	var req protocol.TurnRetryRequest
	if err := decode(params, &req); err != nil {
		return nil, err
	}
	for _, f := range [][2]string{{"session_id", req.SessionID}, {"turn_id", req.TurnID}, {"client_id", req.ClientID}} {
		if err := a.checkID(f[0], f[1]); err != nil {
			return nil, err
		}
	}
	if err := a.allowSend(c); err != nil {
		return nil, err
	}
	var res *protocol.TurnStartResult
	err := a.write(ctx, func(tx store.Tx) error {
		var err error
		res, err = core.RetryTurn(tx, c, &req)
		return err
	})
	return res, err
}
