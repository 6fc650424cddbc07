package llmwire

import "github.com/rtcagent/rtcagent/internal/llm"

// Assembler collects the events of one step as a Decoder reports them and hands
// them out in the same order.
type Assembler struct {
	queue    []llm.Event
	finished bool
}

// Text adds a text delta; an empty one is left out.
func (a *Assembler) Text(t string) {
	if t != "" {
		a.queue = append(a.queue, llm.Event{Kind: llm.EventText, Text: t})
	}
}

// ToolCall adds one complete tool call.
func (a *Assembler) ToolCall(c llm.ToolCall) {
	a.queue = append(a.queue, llm.Event{Kind: llm.EventToolCall, ToolCall: c})
}

// ToolCallDelta adds a piece of a tool call being written.
func (a *Assembler) ToolCallDelta(d llm.ToolCallDelta) {
	a.queue = append(a.queue, llm.Event{Kind: llm.EventToolCallDelta, Delta: d})
}

// Usage adds the provider's token counts; counts that are both zero are left
// out, as they say nothing.
func (a *Assembler) Usage(in, out int64) {
	if in != 0 || out != 0 {
		a.queue = append(a.queue, llm.Event{Kind: llm.EventUsage, Usage: llm.Usage{InputTokens: in, OutputTokens: out}})
	}
}

// Finish records that the provider said the step is complete; a stream that
// ends before it fails.
func (a *Assembler) Finish() { a.finished = true }

// Finished reports whether Finish was called.
func (a *Assembler) Finished() bool { return a.finished }

// next takes the oldest event not yet handed out.
func (a *Assembler) next() (llm.Event, bool) {
	if len(a.queue) == 0 {
		return llm.Event{}, false
	}
	ev := a.queue[0]
	a.queue = a.queue[1:]
	return ev, true
}

// drop forgets the events not yet handed out.
func (a *Assembler) drop() { a.queue = nil }
