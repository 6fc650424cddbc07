package openai

import (
	"crypto/rand"
	"fmt"
	"sort"

	sdk "github.com/openai/openai-go/v3"

	"github.com/rtcagent/rtcagent/internal/llm"
	"github.com/rtcagent/rtcagent/internal/llm/llmwire"
)

// wire is what the shared step code needs of the Chat Completions API: a step
// is complete at the first finish_reason.
var wire = &llmwire.Wire[sdk.ChatCompletionNewParams, sdk.ChatCompletionChunk]{
	Provider: "openai", RequestIDHeader: requestIDHeader, FinishEvent: "a finish_reason",
	Decoder:  func() llmwire.Decoder[sdk.ChatCompletionChunk] { return &decoder{byIndex: map[int64]*toolCall{}} },
	APIError: apiError,
}

// decoder reads completion chunks. Tool calls come in fragments and are held
// back until the choice finishes.
type decoder struct {
	calls   []*toolCall
	byIndex map[int64]*toolCall
	chunkID string // names synthesized tool call ids
}

// toolCall accumulates the fragments of one streamed tool call.
type toolCall struct {
	index int64
	pos   int // its place among the step's calls as they came
	id    string
	name  string
	args  []byte
}

func (d *decoder) Decode(c sdk.ChatCompletionChunk, a *llmwire.Assembler) {
	for _, ch := range c.Choices {
		// The engine never asks for n > 1; other choices would interleave.
		if ch.Index != 0 {
			continue
		}
		a.Text(ch.Delta.Content)
		a.Text(ch.Delta.Refusal)
		for _, tc := range ch.Delta.ToolCalls {
			d.accumulate(c.ID, tc, a)
		}
		if ch.FinishReason != "" && !a.Finished() {
			a.Finish()
			d.flushToolCalls(a)
		}
	}
	if c.JSON.Usage.Valid() {
		a.Usage(c.Usage.PromptTokens, c.Usage.CompletionTokens)
	}
}

// accumulate adds a fragment of a call and reports it as a piece of the call
// being written.
func (d *decoder) accumulate(chunkID string, f sdk.ChatCompletionChunkChoiceDeltaToolCall, a *llmwire.Assembler) {
	tc := d.byIndex[f.Index]
	// Some compatible servers reuse index 0 for every call; a new id means a new
	// call even at a known index.
	if tc == nil || (f.ID != "" && tc.id != "" && f.ID != tc.id) {
		tc = &toolCall{index: f.Index, pos: len(d.calls)}
		d.byIndex[f.Index] = tc
		d.calls = append(d.calls, tc)
	}
	if f.ID != "" {
		tc.id = f.ID
	}
	if f.Function.Name != "" {
		tc.name = f.Function.Name
	}
	tc.args = append(tc.args, f.Function.Arguments...)
	if d.chunkID == "" {
		d.chunkID = chunkID
	}
	a.ToolCallDelta(llm.ToolCallDelta{Index: tc.pos, ID: tc.id, Name: tc.name, Args: f.Function.Arguments})
}

// flushToolCalls reports the accumulated calls in index order, each with an id.
func (d *decoder) flushToolCalls(a *llmwire.Assembler) {
	sort.SliceStable(d.calls, func(i, j int) bool { return d.calls[i].index < d.calls[j].index })
	for i, tc := range d.calls {
		if tc.id == "" {
			// Local servers sometimes omit ids; the engine needs one per call,
			// unique in the conversation, hence the completion id or randomness.
			base := d.chunkID
			if base == "" {
				base = rand.Text()[:12]
			}
			tc.id = fmt.Sprintf("call_%s_%d", base, i)
		}
		a.ToolCall(llm.ToolCall{ID: tc.id, Name: tc.name, Arguments: tc.args})
	}
	d.calls = nil
	clear(d.byIndex)
}
