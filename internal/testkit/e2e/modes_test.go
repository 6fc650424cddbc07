package e2e

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/rtcagent/rtcagent/internal/protocol"
)

// The work modes a connection's token allows hold for its calls over the
// WebSocket: a mode the token leaves out is refused (forbidden), the allowed
// ones work, and a new chat starts in the first allowed mode.
func TestTokenModesOverTheConnection(t *testing.T) {
	s := startServer(t, mustScript(t, oneWriteScript))
	b := newBrowser(t, s, "alice", "dev-a", withModes(protocol.ModeManual, protocol.ModePlan))
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, err := b.call(ctx, protocol.MethodMessageSend, protocol.MessageSendRequest{ClientID: "c1", WorkMode: protocol.ModeBypass,
		Content: protocol.MessageContent{Text: "pay everything"}})
	var pe *protocol.Error
	if !errors.As(err, &pe) || pe.Code != protocol.CodeForbidden {
		t.Fatalf("bypass under a token without it: %v, want forbidden", err)
	}
	res := b.send("", "hello")
	var s1 protocol.SessionResult
	b.mustCall(protocol.MethodSessionGet, protocol.IDRequest{SessionID: res.SessionID}, &s1)
	if s1.Session.WorkMode != protocol.ModeManual {
		t.Fatalf("new chat in %s, want manual (edit is not allowed)", s1.Session.WorkMode)
	}
	_, err = b.call(ctx, protocol.MethodSessionUpdate, map[string]any{"session_id": res.SessionID, "work_mode": protocol.ModeEdit})
	if !errors.As(err, &pe) || pe.Code != protocol.CodeForbidden {
		t.Fatalf("switch to edit: %v, want forbidden", err)
	}
	if _, err := b.call(ctx, protocol.MethodSessionUpdate, map[string]any{"session_id": res.SessionID, "work_mode": protocol.ModePlan}); err != nil {
		t.Fatalf("switch to plan: %v", err)
	}
	// The turn ends before the browser goes (its tool call would lose its result).
	b.waitTurn(res.TurnID, 10*time.Second)
}
