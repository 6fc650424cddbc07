package anthropic

import (
	sdk "github.com/anthropics/anthropic-sdk-go/v2"

	"github.com/rtcagent/rtcagent/internal/llm"
	"github.com/rtcagent/rtcagent/internal/llm/llmwire"
)

// wire is what the shared step code needs of the Messages API: a step is
// complete at message_stop.
var wire = &llmwire.Wire[sdk.MessageNewParams, sdk.MessageStreamEventUnion]{
	Provider: "anthropic", RequestIDHeader: "request-id", FinishEvent: "message_stop",
	Decoder:  func() llmwire.Decoder[sdk.MessageStreamEventUnion] { return &decoder{tools: map[int64]*toolUse{}} },
	APIError: apiError,
}

// decoder reads the Messages API's stream events. Input tokens include the
// cached ones, so that they mean the size of the context as OpenAI's
// prompt_tokens do.
type decoder struct {
	tools map[int64]*toolUse // open tool_use blocks by content index
	calls int                // tool_use blocks started
}

// toolUse accumulates one tool_use content block.
type toolUse struct {
	pos        int // its place among the step's calls
	id, name   string
	args       []byte
	startInput string // input given whole at block start, used if no delta comes
}

func (d *decoder) Decode(ev sdk.MessageStreamEventUnion, a *llmwire.Assembler) {
	switch ev.Type {
	case "message_start":
		u := ev.Message.Usage
		a.Usage(u.InputTokens+u.CacheCreationInputTokens+u.CacheReadInputTokens, u.OutputTokens)
	case "content_block_start":
		switch cb := ev.ContentBlock; cb.Type {
		case "text":
			a.Text(cb.Text)
		case "tool_use":
			t := &toolUse{pos: d.calls, id: cb.ID, name: cb.Name, startInput: cb.JSON.Input.Raw()}
			d.tools[ev.Index] = t
			d.calls++
			a.ToolCallDelta(llm.ToolCallDelta{Index: t.pos, ID: t.id, Name: t.name})
		}
	case "content_block_delta":
		switch ev.Delta.Type {
		case "text_delta":
			a.Text(ev.Delta.Text)
		case "input_json_delta":
			if t := d.tools[ev.Index]; t != nil {
				t.args = append(t.args, ev.Delta.PartialJSON...)
				a.ToolCallDelta(llm.ToolCallDelta{Index: t.pos, ID: t.id, Name: t.name, Args: ev.Delta.PartialJSON})
			}
		}
	case "content_block_stop":
		if t := d.tools[ev.Index]; t != nil {
			delete(d.tools, ev.Index)
			a.ToolCall(llm.ToolCall{ID: t.id, Name: t.name, Arguments: t.arguments()})
		}
	case "message_delta":
		u := ev.Usage
		a.Usage(u.InputTokens+u.CacheCreationInputTokens+u.CacheReadInputTokens, u.OutputTokens)
	case "message_stop":
		a.Finish()
	}
}

// arguments is the accumulated input; a tool without parameters streams no
// delta at all, which means {}.
func (t *toolUse) arguments() []byte {
	switch {
	case len(t.args) > 0:
		return t.args
	case t.startInput != "" && t.startInput != "null":
		return []byte(t.startInput)
	}
	return []byte("{}")
}
