package core

import (
	"errors"

	"github.com/google/uuid"

	"github.com/rtcagent/rtcagent/internal/protocol"
	"github.com/rtcagent/rtcagent/internal/store"
)

// Caller is the authenticated origin of a request: the user from the connection
// token and the device id the connection declared.
type Caller struct {
	UserID   string
	DeviceID string
	// Modes are the work modes the token allows (none: all); see ModeAllowed.
	Modes []string
}

// NewID returns a new time-ordered unique id.
func NewID() string { return uuid.Must(uuid.NewV7()).String() }

// Inbox item kinds.
const (
	KindTurnStart  = store.KindTurnStart  // a queued turn may start
	KindTurnResume = store.KindTurnResume // every RTC of the waiting step is terminal
	KindRTCExecute = "rtc.execute"        // the turn's open server call may run
)

// mapNotFound turns store.ErrNotFound into the protocol's not_found.
func mapNotFound(err error, kind, id string) error {
	if errors.Is(err, store.ErrNotFound) {
		return protocol.ErrNotFound(kind, id)
	}
	return err
}

// SessionFor loads a session the caller may see. Sessions of other users and
// deleted sessions are not found.
func SessionFor(tx store.Sessions, c Caller, id string) (*protocol.Session, error) {
	s, err := tx.SessionGet(id)
	if err != nil {
		return nil, mapNotFound(err, "session", id)
	}
	if s.UserID != c.UserID || s.Deleted {
		return nil, protocol.ErrNotFound("session", id)
	}
	return s, nil
}

// SessionForDevice loads a session the caller may act on: its own device's.
func SessionForDevice(tx store.Sessions, c Caller, id string) (*protocol.Session, error) {
	s, err := SessionFor(tx, c, id)
	if err != nil {
		return nil, err
	}
	if s.DeviceID != c.DeviceID {
		return nil, protocol.Errorf(protocol.CodeForbidden, "session %q belongs to another device of this user, which runs its tools; continue it on this device first (v1.session.move)", id)
	}
	return s, nil
}

// RTCForDevice loads an RTC the caller may act on.
func RTCForDevice(tx store.Tx, c Caller, id string) (*protocol.RTC, error) {
	r, err := tx.RTCGet(id)
	if err != nil {
		return nil, mapNotFound(err, "rtc", id)
	}
	if r.UserID != c.UserID {
		return nil, protocol.ErrNotFound("rtc", id)
	}
	if _, err := SessionForDevice(tx, c, r.SessionID); err != nil {
		return nil, err
	}
	return r, nil
}
