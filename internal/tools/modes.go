package tools

import (
	"encoding/json"

	"github.com/rtcagent/rtcagent/internal/protocol"
)

// Decision is what the work mode says about one call.
type Decision struct {
	Refused           bool // plan mode: the call is not executed
	NeedsConfirmation bool // the browser asks the user before executing
}

// Decide applies the permission matrix of the protocol. An unknown mode is treated
// as the most careful one (manual): never run a tool without asking because a
// mode was not recognised.
func Decide(mode string, kind Kind) Decision {
	switch kind {
	case KindRead, KindAsk:
		return Decision{}
	case KindWrite:
		switch mode {
		case protocol.ModeEdit, protocol.ModeBypass:
			return Decision{}
		case protocol.ModePlan:
			return Decision{Refused: true}
		}
		return Decision{NeedsConfirmation: true}
	default: // script, host
		switch mode {
		case protocol.ModeBypass:
			return Decision{}
		case protocol.ModePlan:
			return Decision{Refused: true}
		}
		return Decision{NeedsConfirmation: true}
	}
}

// DecideCall is Decide for one call: a write or edit of a protected path
// (ProtectedPaths) needs confirmation in every mode that runs it except bypass.
// The browser applies the same rule on its own and asks when either side says so.
func DecideCall(mode string, kind Kind, args json.RawMessage) Decision {
	d := Decide(mode, kind)
	if kind == KindWrite && !d.Refused && mode != protocol.ModeBypass && touchesProtected(args) {
		d.NeedsConfirmation = true
	}
	return d
}

// PlanRefusal is the text the model sees for a call refused in plan mode.
func PlanRefusal(name string) string {
	return "The session is in plan mode, which is read-only: the tool " + name +
		" was not run. Use ls, read, grep, find and askUser to investigate, then describe the plan in your answer; the user switches to another mode to let you make changes."
}

// DecideTool is DecideCall for a tool of the set: a host tool's own
// needsApproval replaces the matrix's row in every mode that runs host tools.
// Declared true ("always") it is a floor no work mode lowers: it asks in bypass
// too. False ("never") or a function of its arguments ("arguments") needs no
// confirmation from the server; for "arguments" the browser evaluates the
// function and asks when it says so, in bypass too. Plan mode still refuses
// host tools.
func DecideTool(mode string, t Tool, args json.RawMessage) Decision {
	d := DecideCall(mode, t.Kind, args)
	if t.Kind != KindHost || d.Refused {
		return d
	}
	switch t.Approval {
	case protocol.ApprovalAlways:
		d.NeedsConfirmation = true
	case protocol.ApprovalNever, protocol.ApprovalArguments:
		d.NeedsConfirmation = false
	}
	return d
}

// MayAsk reports whether a call of t may wait for a person: it needs
// confirmation, asks questions, or its host tool decides per call in the browser.
func MayAsk(d Decision, t Tool) bool {
	return d.NeedsConfirmation || t.Kind == KindAsk || (t.Kind == KindHost && t.Approval == protocol.ApprovalArguments)
}

// AllowableForChat reports whether "Allow for this chat" may cover a call: host
// tools, and write or edit of a path that is not protected and not misleading
// (MisleadingPath: a person may not have read it as what it is). Scripts run
// code and save into /.scripts/, and protected paths ask every time, so neither
// is ever covered; the other tools do not ask at all.
func AllowableForChat(name string, args json.RawMessage) bool {
	switch name {
	case "write", "edit":
		p, ok := argPath(args)
		return ok && !IsProtectedPath(p) && !MisleadingPath(p)
	}
	return !IsBuiltin(name)
}
