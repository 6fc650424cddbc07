package core

import (
	"strings"

	"github.com/google/uuid"

	"github.com/rtcagent/rtcagent/internal/protocol"
)

// A call a tool's view asked for (internal/lifecycle, CallFromView) names
// the view's call and the view's idempotency key in its tool_call_id,
// app:<call>:<key>, and its RTC id is derived from that, so a repeated
// request finds it.

// ViewCallID is the tool_call_id of the call a view of server call parentID
// asked for with idempotency key clientID.
func ViewCallID(parentID, clientID string) string { return ViewCallPrefix(parentID) + clientID }

// ViewCallPrefix starts the tool_call_id of every call of view parentID.
func ViewCallPrefix(parentID string) string { return protocol.ViewCallIDPrefix + parentID + ":" }

// ViewCallRTCID is the id of the RTC for the call a view of call parentID
// asked for with idempotency key clientID.
func ViewCallRTCID(parentID, clientID string) string {
	return uuid.NewSHA1(viewCallSpace, []byte(ViewCallID(parentID, clientID))).String()
}

// viewCallSpace is the UUID name space of view calls' RTC ids.
var viewCallSpace = uuid.MustParse("5b0c8a4e-3f1d-4c3a-9d7e-2a6f0e1b7c58")

// IsViewCall reports whether r is a call a tool's view asked for.
func IsViewCall(r *protocol.RTC) bool {
	return strings.HasPrefix(r.ToolCallID, protocol.ViewCallIDPrefix)
}

// viewCallOf returns the view's call and key a view call's tool_call_id
// names.
func viewCallOf(toolCallID string) (parentID, clientID string, ok bool) {
	rest, ok := strings.CutPrefix(toolCallID, protocol.ViewCallIDPrefix)
	if !ok {
		return "", "", false
	}
	return strings.Cut(rest, ":")
}
