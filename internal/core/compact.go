package core

import (
	"github.com/rtcagent/rtcagent/internal/protocol"
	"github.com/rtcagent/rtcagent/internal/store"
)

// CompactSession queues a compact turn: when it runs (after the turns queued
// before it), the model summarises the conversation so far, with the optional
// instruction, and later steps start from that summary. Like any turn it can be
// stopped and shows its status.
func CompactSession(tx store.Tx, c Caller, req *protocol.SessionCompactRequest) (*protocol.TurnStartResult, error) {
	s, err := SessionForDevice(tx, c, req.SessionID)
	if err != nil {
		return nil, err
	}
	if s.Status == protocol.SessionClosed {
		return nil, protocol.Errorf(protocol.CodeConflict, "session %q is closed; open it before compacting", s.ID)
	}
	t := &protocol.Turn{ID: NewID(), SessionID: s.ID, UserID: c.UserID, Kind: protocol.TurnKindCompact,
		Instruction: req.Instruction, Status: protocol.TurnQueued}
	return queueTurn(tx, t)
}

// queueTurn inserts a new queued turn as the session's last and queues its start;
// the worker drops the start while another turn is active, and ending that turn
// queues this one again (see SendMessage).
func queueTurn(tx store.Tx, t *protocol.Turn) (*protocol.TurnStartResult, error) {
	seq, err := tx.TurnMaxSeq(t.SessionID)
	if err != nil {
		return nil, err
	}
	t.Seq = seq + 1
	if err := EmitTurn(tx, t, ""); err != nil {
		return nil, err
	}
	if err := tx.InboxInsert(&store.InboxItem{SessionID: t.SessionID, Kind: KindTurnStart, TurnID: t.ID}); err != nil {
		return nil, err
	}
	return &protocol.TurnStartResult{SessionID: t.SessionID, TurnID: t.ID}, nil
}
