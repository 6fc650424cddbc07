package llmfake

import "github.com/rtcagent/rtcagent/internal/llm"

// Result is everything a stream produced, for assertions.
type Result struct {
	Events     []llm.Event
	Text       string
	TextEvents int
	ToolCalls  []llm.ToolCall
	// Usage merges the usage events by the llm.EventUsage rule (the last non-zero
	// value of each field wins).
	Usage llm.Usage
	Err   error
}

// Drain reads st to its end and closes it.
func Drain(st llm.Stream) Result {
	defer st.Close()
	var r Result
	for st.Next() {
		ev := st.Current()
		r.Events = append(r.Events, ev)
		switch ev.Kind {
		case llm.EventText:
			r.Text += ev.Text
			r.TextEvents++
		case llm.EventToolCall:
			r.ToolCalls = append(r.ToolCalls, ev.ToolCall)
		case llm.EventUsage:
			mergeUsage(&r.Usage, ev.Usage)
		}
	}
	r.Err = st.Err()
	return r
}
