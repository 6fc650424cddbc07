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
// of the conversation), with each tool call followed by its outcome. When the
// conversation was compacted it starts from the latest summary, given as a user
// message (SummaryBlock), followed by the messages after the ones it replaces.
// resultLimit bounds the bytes of one tool result given to the model.
func BuildMessages(tr Transcript, upTo int64, resultLimit int) []llm.Message {
	v := newView(tr, upTo)
	var out []llm.Message
	if v.summary != nil {
		out = append(out, SummaryBlock(v.summary.Text))
	}
	for i := range v.tail {
		out = v.render(out, v.tail[i], resultLimit)
	}
	return out
}

// view is the conversation as the model reads it: the latest summary and the
// messages after the ones it covers, in reading order.
type view struct {
	summary *protocol.Message
	tail    []*protocol.Message // into the transcript's messages, read only
	byCall  map[string]*protocol.RTC
}

// newView orders the messages of the turns up to upTo as the model reads them:
// turn by turn (a message sent while a turn ran has a lower seq than that turn's
// later messages), by seq within a turn. The latest complete summary covers the
// messages up to its summary_of_seq in that order: those of earlier turns than
// the turn of message summary_of_seq, and that turn's up to that seq.
func newView(tr Transcript, upTo int64) view {
	turnSeq := make(map[string]int64, len(tr.Turns))
	for _, t := range tr.Turns {
		turnSeq[t.ID] = t.Seq
	}
	v := view{byCall: make(map[string]*protocol.RTC, len(tr.RTCs))}
	for i := range tr.RTCs {
		r := &tr.RTCs[i]
		v.byCall[r.MessageID+"\x00"+r.ToolCallID] = r
	}
	msgs := make([]*protocol.Message, 0, len(tr.Messages))
	for i := range tr.Messages {
		m := &tr.Messages[i]
		if s, ok := turnSeq[m.TurnID]; ok && s <= upTo {
			msgs = append(msgs, m)
			if m.Role == protocol.RoleSummary && m.Status == protocol.MessageComplete && (v.summary == nil || m.Seq > v.summary.Seq) {
				v.summary = m
			}
		}
	}
	sort.SliceStable(msgs, func(i, j int) bool { return turnSeq[msgs[i].TurnID] < turnSeq[msgs[j].TurnID] })
	if v.summary == nil {
		v.tail = msgs
		return v
	}
	// The covered prefix ends at message summary_of_seq (or, should it be missing,
	// at the summary's own turn).
	coverTurn, coverSeq := turnSeq[v.summary.TurnID], v.summary.SummaryOfSeq
	for _, m := range msgs {
		if m.Seq == coverSeq {
			coverTurn = turnSeq[m.TurnID]
			break
		}
	}
	for _, m := range msgs {
		ts := turnSeq[m.TurnID]
		if ts < coverTurn || (ts == coverTurn && m.Seq <= coverSeq) || m.Role == protocol.RoleSummary {
			continue
		}
		v.tail = append(v.tail, m)
	}
	return v
}

// render appends the model messages of m: nothing for a failed turn's error or a
// cut stream, the text of a user message, an assistant message followed by one
// tool message per call with its RTC's outcome.
func (v *view) render(out []llm.Message, m *protocol.Message, resultLimit int) []llm.Message {
	switch {
	case m.Role == protocol.RoleUser:
		return append(out, llm.Message{Role: llm.RoleUser, Text: UserText(m)})
	case m.Role != protocol.RoleAssistant, m.Status == protocol.MessageError:
		// A failed turn's error is for the user; the model does not need it.
		return out
	case m.Status == protocol.MessageInterrupted && len(m.ToolCalls) == 0:
		// A stream cut by a crash is produced again by the repeated step, and
		// one cut by a stop ended its turn: neither is an answer to build on.
		return out
	}
	am := llm.Message{Role: llm.RoleAssistant, Text: m.Text}
	for _, tc := range m.ToolCalls {
		am.ToolCalls = append(am.ToolCalls, llm.ToolCall{ID: tc.ID, Name: tc.Name, Arguments: tc.Arguments})
	}
	if am.Text == "" && len(am.ToolCalls) == 0 {
		return out
	}
	out = append(out, am)
	for _, tc := range m.ToolCalls {
		out = append(out, llm.Message{Role: llm.RoleTool, ToolCallID: tc.ID,
			Text: ResultText(v.byCall[m.ID+"\x00"+tc.ID], resultLimit)})
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
