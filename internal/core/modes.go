package core

import (
	"slices"
	"strings"

	"github.com/rtcagent/rtcagent/internal/protocol"
)

// ModeAllowed reports whether the caller's token allows the work mode (a
// token that names none allows all).
func (c Caller) ModeAllowed(mode string) bool {
	return len(c.Modes) == 0 || slices.Contains(c.Modes, mode)
}

// CheckMode refuses a work mode the caller's token does not allow.
func (c Caller) CheckMode(mode string) error {
	if c.ModeAllowed(mode) {
		return nil
	}
	return protocol.Errorf(protocol.CodeForbidden, "work mode %q is not allowed for this user; the site allows %s", mode, strings.Join(c.Modes, ", "))
}

// modeFor is mode when the token allows it, else the first mode it allows: a
// session the caller acts on never stays in a mode the site took away.
func (c Caller) modeFor(mode string) string {
	if c.ModeAllowed(mode) {
		return mode
	}
	return c.Modes[0]
}
