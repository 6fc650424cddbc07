package e2e

import (
	"strings"
	"testing"
	"time"

	"github.com/rtcagent/rtcagent/internal/protocol"
)

// A call the model writes in pieces (paced as a model's, slower than
// pieces are joined) reaches the browser on Live as it is written (the
// call's name, id, turn and step, its arguments in order), before the call
// is an RTC; the pieces joined are the RTC's arguments.
func TestCallWrittenInPieces(t *testing.T) {
	s := startServer(t, mustScript(t, `{"name": "pieces", "turns": [{"steps": [
	  {"text": "Writing.", "delay_ms": 60, "tool_calls": [{"name": "write", "arguments": {"path": "/notes.txt", "content": "hello in pieces"}, "argument_chunks": 4}]},
	  {"text": "Done."}
	]}]}`))
	b := newBrowser(t, s, "alice", "dev-a")
	res := b.send("", "write a note")
	if tr := b.waitTurn(res.TurnID, 20*time.Second); tr.Status != protocol.TurnCompleted {
		t.Fatalf("turn ended %s: %+v", tr.Status, tr.Error)
	}
	var rtcs protocol.RTCListResult
	b.mustCall(protocol.MethodRTCList, protocol.ListRequest{SessionID: res.SessionID}, &rtcs)
	if len(rtcs.RTCs) != 1 {
		t.Fatalf("rtcs %+v", rtcs.RTCs)
	}
	r := rtcs.RTCs[0]
	b.mu.Lock()
	seen := append([]callDeltaSeen(nil), b.callDeltas...)
	b.mu.Unlock()
	if len(seen) != 4 {
		t.Fatalf("%d pieces of the call, want 4: %+v", len(seen), seen)
	}
	var args strings.Builder
	for i, d := range seen {
		if d.Type != protocol.CallDeltaType || d.SessionID != res.SessionID || d.TurnID != res.TurnID || d.Step != r.Step || d.Index != 0 ||
			d.Name != "write" || d.ToolCallID != r.ToolCallID || d.Seq != int64(i+1) {
			t.Fatalf("piece %d: %+v, for the call %+v", i, d.CallDelta, r)
		}
		if d.rtcsBefore != 0 {
			t.Errorf("piece %d came after the browser saw %d RTCs", i, d.rtcsBefore)
		}
		args.WriteString(d.Delta)
	}
	if args.String() != string(r.Arguments) {
		t.Fatalf("pieces joined %q, the call's arguments %s", args.String(), r.Arguments)
	}
}
