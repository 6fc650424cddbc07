package core

import (
	"errors"

	"github.com/rtcagent/rtcagent/internal/protocol"
	"github.com/rtcagent/rtcagent/internal/store"
)

// RetryTurn queues a new turn that continues from the user message of a failed or
// stopped turn, which must be the session's latest (ended turns of a view's
// calls after it aside). The model sees that message
// and the retried turn's completed steps with their tool results, not its error
// message. The same client_id for the same turn returns the first result.
func RetryTurn(tx store.Tx, c Caller, req *protocol.TurnRetryRequest) (*protocol.TurnStartResult, error) {
	s, err := SessionForDevice(tx, c, req.SessionID)
	if err != nil {
		return nil, err
	}
	old, err := tx.TurnGet(req.TurnID)
	if errors.Is(err, store.ErrNotFound) || (err == nil && old.SessionID != s.ID) {
		return nil, protocol.ErrNotFound("turn", req.TurnID)
	}
	if err != nil {
		return nil, err
	}
	later, err := tx.TurnList(s.ID, store.Page{After: old.Seq, Limit: 1 << 30})
	if err != nil {
		return nil, err
	}
	newer := 0 // turns after old but a view's calls' own, which leave the conversation as it was
	for _, t := range later {
		if t.RetryOf == old.ID && t.ClientID == req.ClientID {
			return &protocol.TurnStartResult{SessionID: s.ID, TurnID: t.ID}, nil
		}
		if t.Kind != protocol.TurnKindApp || !protocol.TurnTerminal(t.Status) {
			newer++
		}
	}
	switch {
	case newer > 0:
		return nil, protocol.Errorf(protocol.CodeConflict, "turn %q is not the session's latest turn", old.ID)
	case old.Kind == protocol.TurnKindApp:
		return nil, protocol.Errorf(protocol.CodeInvalidArgument, "turn %q ran a tool view's call; the view calls again, a retry does not", old.ID)
	case old.Status != protocol.TurnFailed && old.Status != protocol.TurnStopped:
		return nil, protocol.Errorf(protocol.CodeConflict, "turn %q is %s; only a failed or stopped turn can be retried", old.ID, old.Status)
	case s.Status == protocol.SessionClosed:
		return nil, protocol.Errorf(protocol.CodeConflict, "session %q is closed; open it before retrying", s.ID)
	}
	t := &protocol.Turn{ID: NewID(), SessionID: s.ID, UserID: c.UserID, UserMessageID: old.UserMessageID, Kind: old.Kind,
		Instruction: old.Instruction, RetryOf: old.ID, ClientID: req.ClientID, Tools: old.Tools, HostToolsOnly: old.HostToolsOnly, Status: protocol.TurnQueued}
	return queueTurn(tx, t)
}
