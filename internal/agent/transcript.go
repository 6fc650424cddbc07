package agent

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"

	"github.com/rtcagent/rtcagent/internal/llm"
	"github.com/rtcagent/rtcagent/internal/protocol"
)

// Transcript is the durable history a model request is built from.
type Transcript struct {
	Turns    []protocol.Turn    // the session's turns
	Messages []protocol.Message // the session's messages, by seq
	RTCs     []protocol.RTC     // the session's RTCs
}

// BuildMessages returns the model messages for the turn with sequence upTo: every
// message of that turn and the turns before it (later, queued turns are not yet part
// of the conversation), with each tool call followed by its outcome.
// resultLimit bounds the bytes of one tool result given to the model.
func BuildMessages(tr Transcript, upTo int64, resultLimit int) []llm.Message {
	turnSeq := make(map[string]int64, len(tr.Turns))
	for _, t := range tr.Turns {
		turnSeq[t.ID] = t.Seq
	}
	byCall := make(map[string]*protocol.RTC, len(tr.RTCs))
	for i := range tr.RTCs {
		r := &tr.RTCs[i]
		byCall[r.MessageID+"\x00"+r.ToolCallID] = r
	}
	// A message sent while a turn ran has a lower seq than that turn's later
	// messages; the model sees each turn's messages together, turn by turn.
	msgs := make([]protocol.Message, 0, len(tr.Messages))
	for _, m := range tr.Messages {
		if s, ok := turnSeq[m.TurnID]; ok && s <= upTo {
			msgs = append(msgs, m)
		}
	}
	sort.SliceStable(msgs, func(i, j int) bool { return turnSeq[msgs[i].TurnID] < turnSeq[msgs[j].TurnID] })
	var out []llm.Message
	for _, m := range msgs {
		switch {
		case m.Role == protocol.RoleUser:
			out = append(out, llm.Message{Role: llm.RoleUser, Text: m.Text})
		case m.Status == protocol.MessageError:
			// A failed turn's error is for the user; the model does not need it.
		case m.Status == protocol.MessageInterrupted && len(m.ToolCalls) == 0:
			// A stream cut by a crash is produced again by the repeated step, and
			// one cut by a stop ended its turn: neither is an answer to build on.
		default:
			am := llm.Message{Role: llm.RoleAssistant, Text: m.Text}
			for _, tc := range m.ToolCalls {
				am.ToolCalls = append(am.ToolCalls, llm.ToolCall{ID: tc.ID, Name: tc.Name, Arguments: tc.Arguments})
			}
			if am.Text == "" && len(am.ToolCalls) == 0 {
				continue
			}
			out = append(out, am)
			for _, tc := range m.ToolCalls {
				out = append(out, llm.Message{Role: llm.RoleTool, ToolCallID: tc.ID,
					Text: ResultText(byCall[m.ID+"\x00"+tc.ID], resultLimit)})
			}
		}
	}
	return out
}

// ResultText is what the model sees for an RTC: the output, or a marker.
func ResultText(r *protocol.RTC, limit int) string {
	if r == nil {
		return "[Tool Error] the call was not executed"
	}
	switch r.Status {
	case protocol.RTCCompleted:
		return Truncate(outputText(r.Output), limit)
	case protocol.RTCFailed:
		return "[Tool Error] " + Truncate(r.Error, limit)
	case protocol.RTCTimeout:
		return fmt.Sprintf("[Tool Timeout] %s gave no result within %s.", r.ToolName, fmtMS(r.TimeoutMS))
	case protocol.RTCRejected:
		if r.Error != "" {
			return "[Tool Rejected] " + Truncate(r.Error, limit)
		}
		return "[Tool Rejected] The user declined to run " + r.ToolName + "."
	}
	return "[Tool Pending]"
}

// outputText gives a JSON string to the model as is and anything else as compact JSON.
func outputText(raw json.RawMessage) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return "(no output)"
	}
	var s string
	if raw[0] == '"' && json.Unmarshal(raw, &s) == nil {
		return s
	}
	var buf bytes.Buffer
	if json.Compact(&buf, raw) == nil {
		return buf.String()
	}
	return string(raw)
}

// Truncate cuts s to at most limit bytes, keeping head and tail around a marker
// that says how much was left out.
func Truncate(s string, limit int) string {
	if limit <= 0 || len(s) <= limit {
		return s
	}
	marker := fmt.Sprintf("\n[... %d bytes omitted ...]\n", len(s)-limit)
	keep := limit - len(marker)
	if keep < 2 {
		return cutRunes(s, limit)
	}
	head := cutRunes(s, keep*2/3)
	tail := s[len(s)-(keep-len(head)):]
	for len(tail) > 0 && !startsRune(tail) {
		tail = tail[1:]
	}
	return head + marker + tail
}

func cutRunes(s string, n int) string {
	for n > 0 && n < len(s) && !startsRune(s[n:]) {
		n--
	}
	return s[:n]
}

func startsRune(s string) bool { return s[0]&0xC0 != 0x80 }

func fmtMS(ms int64) string {
	if ms%1000 == 0 {
		return fmt.Sprintf("%d s", ms/1000)
	}
	return fmt.Sprintf("%d ms", ms)
}
