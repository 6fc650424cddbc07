package e2e

import (
	"strings"
	"testing"
	"time"

	"github.com/rtcagent/rtcagent/internal/llm"
	"github.com/rtcagent/rtcagent/internal/protocol"
)

// checkWriteRead runs the write → read → answer conversation and checks what the
// client saw: the files, the final answer, contiguous offsets, and final messages
// equal to their Live deltas.
func checkWriteRead(t *testing.T, s *testServer) {
	b := newBrowser(t, s, "alice", "dev-a")
	res := b.send("", "please write and read a note")
	turn := b.waitTurn(res.TurnID, 20*time.Second)
	if turn.Status != protocol.TurnCompleted {
		t.Fatalf("turn ended %s: %+v", turn.Status, turn.Error)
	}
	b.mu.Lock()
	file := b.files["/notes.txt"]
	b.mu.Unlock()
	if file != "hello rtc" {
		t.Fatalf("file content %q", file)
	}
	msgs := b.assistantMessages(res.SessionID)
	if len(msgs) != 3 {
		t.Fatalf("%d assistant messages", len(msgs))
	}
	final := msgs[len(msgs)-1]
	if final.Text != "The file says: hello rtc. Done." || final.Status != protocol.MessageComplete {
		t.Fatalf("final answer %q (%s)", final.Text, final.Status)
	}
	for _, m := range msgs {
		if m.Text == "" {
			continue
		}
		if got := b.deltaText(m.ID); got != m.Text {
			t.Fatalf("message %s: deltas %q, final %q", m.ID, got, m.Text)
		}
	}
	var rtcs protocol.RTCListResult
	b.mustCall(protocol.MethodRTCList, protocol.ListRequest{SessionID: res.SessionID}, &rtcs)
	if len(rtcs.RTCs) != 2 || rtcs.RTCs[0].ToolName != "write" || rtcs.RTCs[1].Status != protocol.RTCCompleted {
		t.Fatalf("rtcs %+v", rtcs.RTCs)
	}
	b.waitOffset(rtcs.Offset)
	b.checkOffsets()
	var p1, p2 protocol.RTCListResult
	b.mustCall(protocol.MethodRTCList, protocol.ListRequest{SessionID: res.SessionID, Limit: 1}, &p1)
	b.mustCall(protocol.MethodRTCList, protocol.ListRequest{SessionID: res.SessionID, Limit: 1, Cursor: p1.NextCursor}, &p2)
	if len(p1.RTCs) != 1 || len(p2.RTCs) != 1 || p1.RTCs[0].ID != rtcs.RTCs[0].ID || p2.RTCs[0].ID != rtcs.RTCs[1].ID {
		t.Fatalf("rtc pages %+v / %+v", p1, p2)
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	for id, c := range b.executed {
		if c != 1 {
			t.Fatalf("rtc %s executed %d times", id, c)
		}
	}
}

func TestRoundTripScripted(t *testing.T) {
	model := mustScript(t, writeReadScript)
	s := startServer(t, model)
	checkWriteRead(t, s)
	// The model saw the tool results it needed.
	reqs := model.Requests()
	last := reqs[len(reqs)-1]
	var toolMsgs []string
	for _, m := range last.Messages {
		if m.Role == llm.RoleTool {
			toolMsgs = append(toolMsgs, m.Text)
		}
	}
	if len(toolMsgs) != 2 || !strings.HasPrefix(toolMsgs[0], "wrote 9 bytes") || toolMsgs[1] != "hello rtc" {
		t.Fatalf("model saw tool results %q", toolMsgs)
	}
}
