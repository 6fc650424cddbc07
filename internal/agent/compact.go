package agent

import (
	"strings"

	"github.com/rtcagent/rtcagent/internal/llm"
	"github.com/rtcagent/rtcagent/internal/protocol"
)

// Compaction is the part of a conversation a new summary replaces.
type Compaction struct {
	// Messages is what the summary must cover, as the model reads it: the
	// previous summary (if any) and the messages after it up to the cut.
	Messages []llm.Message
	// SummaryOfSeq is the seq of the last message covered, the new summary's
	// summary_of_seq.
	SummaryOfSeq int64
	// Tokens estimates the covered messages, Remaining the context after the
	// summary replaced them (without the summary itself).
	Tokens, Remaining int64
}

// PlanCompaction decides the cut for a summary of the conversation that the turn
// with sequence upTo would send to the model. The recent tail of about keepTokens
// (estimated) stays verbatim; with keepTokens > 0 at least the last message and its
// tool results stay. The cut falls between messages in the order the model reads
// them, and a message's tool results go with it, so a tool call is never separated
// from its result. It returns nil when nothing new would be covered.
func PlanCompaction(tr Transcript, upTo int64, keepTokens int64, resultLimit int) *Compaction {
	v := newView(tr, upTo)
	units := make([][]llm.Message, len(v.tail))
	sizes := make([]int64, len(v.tail))
	var total int64
	for i := range v.tail {
		units[i] = v.render(nil, v.tail[i], resultLimit)
		sizes[i] = EstimateTokens(units[i])
		total += sizes[i]
	}
	cut := len(units)
	if keepTokens > 0 {
		var kept int64
		for cut > 0 {
			if kept+sizes[cut-1] > keepTokens && kept > 0 {
				break
			}
			kept += sizes[cut-1]
			cut--
			if kept >= keepTokens {
				break
			}
		}
	}
	newMsgs := 0
	for _, u := range units[:cut] {
		newMsgs += len(u)
	}
	if newMsgs == 0 {
		return nil
	}
	c := &Compaction{SummaryOfSeq: v.tail[cut-1].Seq}
	if v.summary != nil {
		c.Messages = append(c.Messages, SummaryBlock(v.summary.Text))
	}
	for _, u := range units[:cut] {
		c.Messages = append(c.Messages, u...)
	}
	c.Tokens = EstimateTokens(c.Messages)
	for _, s := range sizes[cut:] {
		c.Remaining += s
	}
	return c
}

// SummaryBlock is the user message that stands for the summarised conversation.
func SummaryBlock(summary string) llm.Message {
	return llm.Message{Role: llm.RoleUser, Text: llm.SummaryOpen + "\n" + summary + "\n" + llm.SummaryClose}
}

// SummaryRequest asks the model for the summary of c, focused by the optional
// instruction. tools are those of the conversation: some providers refuse tool
// calls in a transcript without tool definitions.
func SummaryRequest(c *Compaction, instruction string, tools []llm.ToolSpec) *llm.Request {
	ask := llm.SummaryAsk + " It replaces everything above, so keep every " +
		"detail the assistant needs to continue, including the user's latest request if it is not answered yet."
	if instruction = strings.TrimSpace(instruction); instruction != "" {
		ask += "\n\nThe user asks the summary to: " + instruction
	}
	msgs := append(append([]llm.Message(nil), c.Messages...), llm.Message{Role: llm.RoleUser, Text: ask})
	return &llm.Request{System: llm.SummarySystem, Messages: msgs, Tools: tools}
}

// EstimateTokens estimates the tokens of messages from their bytes (about four
// bytes a token), for when the provider has not reported a size.
func EstimateTokens(msgs []llm.Message) int64 {
	n := 0
	for _, m := range msgs {
		n += len(m.Text) + len(m.ToolCallID) + 8
		for _, tc := range m.ToolCalls {
			n += len(tc.ID) + len(tc.Name) + len(tc.Arguments)
		}
	}
	return int64(n / 4)
}

// RequestTokens estimates the context a request fills.
func RequestTokens(req *llm.Request) int64 {
	n := int64(len(req.System) / 4)
	for _, t := range req.Tools {
		n += int64((len(t.Name) + len(t.Description) + len(t.Parameters)) / 4)
	}
	return n + EstimateTokens(req.Messages)
}

// ContextTokens is how full the context of the request is: the input the
// provider reported for the latest step plus that step's output, or the estimate
// of the request when that is larger (tool results came in since) or no step
// since the latest summary reported one (a step before it saw the longer
// history).
func ContextTokens(tr Transcript, upTo int64, req *llm.Request) int64 {
	est := RequestTokens(req)
	v := newView(tr, upTo)
	for i := len(v.tail) - 1; i >= 0; i-- {
		m := v.tail[i]
		if v.summary != nil && m.Seq < v.summary.Seq {
			break
		}
		if u := m.Usage; m.Role == protocol.RoleAssistant && u != nil && u.InputTokens > 0 {
			return max(est, u.InputTokens+u.OutputTokens)
		}
	}
	return est
}
