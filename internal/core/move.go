package core

import (
	"github.com/rtcagent/rtcagent/internal/protocol"
	"github.com/rtcagent/rtcagent/internal/store"
)

// MoveSession makes the caller's device the one that runs the session's
// browser tools and sends to it ("Continue here" on another device of the
// same user). A browser call already running on the other device stays
// there: until it ends the move is a conflict, so no call ever runs on two
// devices and no running call loses the device that reports its result.
// Calls delivered but not started move with the session: the other device
// can no longer claim or answer them (RTCForDevice), and this device's
// executor takes them from the session's change.
func MoveSession(tx store.Tx, c Caller, id string) (*protocol.Session, error) {
	s, err := SessionFor(tx, c, id)
	if err != nil || s.DeviceID == c.DeviceID {
		return s, err
	}
	if s.ActiveTurnID != "" {
		open, err := tx.RTCListOpenByTurn(s.ActiveTurnID)
		if err != nil {
			return nil, err
		}
		for _, r := range open {
			if r.Executor == protocol.RTCExecutorBrowser && r.Status == protocol.RTCExecuting {
				return nil, protocol.Errorf(protocol.CodeConflict, "a %s call is running on the other device; continue here once it ends", r.ToolName)
			}
		}
	}
	s.DeviceID = c.DeviceID
	return s, EmitSession(tx, s, protocol.UpdSessionUpdated)
}
