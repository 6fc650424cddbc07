package agent_test

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/rtcagent/rtcagent/internal/agent"
	"github.com/rtcagent/rtcagent/internal/protocol"
)

// transcriptOf builds a session of one turn with n tool calls, one per step, each
// with a 1 KiB result: the shape of a long tool-using turn.
func transcriptOf(n int) agent.Transcript {
	tr := agent.Transcript{Turns: []protocol.Turn{{ID: "t", SessionID: "s", Seq: 1, Status: protocol.TurnRunning, UserMessageID: "m0"}}}
	tr.Messages = append(tr.Messages, protocol.Message{ID: "m0", SessionID: "s", TurnID: "t", Seq: 1, Role: protocol.RoleUser,
		Text: "go", Status: protocol.MessageComplete})
	out, _ := json.Marshal(fmt.Sprintf("%01024d", 7))
	for i := 1; i <= n; i++ {
		mid, cid := fmt.Sprintf("m%d", i), fmt.Sprintf("c%d", i)
		tr.Messages = append(tr.Messages, protocol.Message{ID: mid, SessionID: "s", TurnID: "t", Seq: int64(i + 1), Role: protocol.RoleAssistant,
			Status: protocol.MessageComplete, ToolCalls: []protocol.ToolCall{{ID: cid, Name: "read", Arguments: json.RawMessage(`{"path":"a.txt"}`)}}})
		tr.RTCs = append(tr.RTCs, protocol.RTC{ID: "r" + cid, SessionID: "s", TurnID: "t", MessageID: mid, ToolCallID: cid, Step: i,
			Status: protocol.RTCCompleted, Output: out})
	}
	return tr
}

// The CPU part of a model step: building the request from the transcript.
func BenchmarkBuildMessages(b *testing.B) {
	for _, n := range []int{10, 100, 500} {
		tr := transcriptOf(n)
		b.Run(fmt.Sprintf("calls=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if msgs := agent.BuildMessages(tr, 1, 16<<10); len(msgs) != 2*n+1 {
					b.Fatalf("%d messages", len(msgs))
				}
			}
		})
	}
}
