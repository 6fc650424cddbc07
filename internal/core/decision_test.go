package core_test

import (
	"testing"
	"time"

	"github.com/rtcagent/rtcagent/internal/core"
	"github.com/rtcagent/rtcagent/internal/protocol"
	"github.com/rtcagent/rtcagent/internal/store"
)

// addCall adds a delivered call of tool in the fixture's turn.
func (f *fixture) addCall(t *testing.T, seq int, tool string, needsConfirmation bool) string {
	t.Helper()
	r := &protocol.RTC{ID: core.NewID(), SessionID: f.sess, TurnID: f.turn, UserID: caller.UserID, ToolCallID: core.NewID(),
		Seq: seq, Step: 1, ToolName: tool, Arguments: []byte(`{"path":"/notes.md","content":"x"}`), Status: protocol.RTCQueued,
		NeedsConfirmation: needsConfirmation, TimeoutMS: 60_000}
	write(t, f.st, func(tx store.Tx) error { return core.Deliver(tx, r, "") })
	return r.ID
}

// A browser that says it ran a call because of an "Allow for this chat" gets
// the approval the session holds recorded, never its own claim: without one,
// the call is recorded as allowed once by that device, with a note.
func TestStandingApprovalIsVerified(t *testing.T) {
	standing := &protocol.ApprovalAnswer{Scope: protocol.ScopeSession, Standing: true}
	t.Run("claimed, not held", func(t *testing.T) {
		f := newFixture(t)
		f.setTurn(t, protocol.TurnWaiting)
		id := f.addCall(t, 1, "write", true)
		err := f.run(func(tx store.Tx) error {
			_, err := core.UpdateRTCStatus(tx, caller, &protocol.RTCUpdateStatusRequest{RTCID: id, Status: protocol.RTCExecuting, Approval: standing})
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		d := f.rtc(t, id).Decision
		if d == nil || d.Standing || d.Scope != protocol.ScopeOnce || d.Reason == "" {
			t.Fatalf("decision %+v: want allowed once with a note, not standing", d)
		}
	})
	t.Run("held", func(t *testing.T) {
		f := newFixture(t)
		f.setTurn(t, protocol.TurnWaiting)
		granted := time.Now().UTC().Add(-time.Hour).Truncate(time.Millisecond)
		f.setSession(t, func(s *protocol.Session) {
			s.Approvals = []protocol.ToolApproval{{Tool: "write", DeviceID: "laptop", RTCID: "earlier", GrantedAt: granted}}
		})
		id := f.addCall(t, 1, "write", true)
		err := f.run(func(tx store.Tx) error {
			_, err := core.UpdateRTCStatus(tx, caller, &protocol.RTCUpdateStatusRequest{RTCID: id, Status: protocol.RTCExecuting, Approval: standing})
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		d := f.rtc(t, id).Decision
		if d == nil || !d.Standing || d.Scope != protocol.ScopeSession || d.DeviceID != "laptop" || !d.At.Equal(granted) {
			t.Fatalf("decision %+v: want the session's standing approval", d)
		}
	})
}
