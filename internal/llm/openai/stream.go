package openai

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"net/http"
	"sort"

	sdk "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/packages/ssestream"

	"github.com/rtcagent/rtcagent/internal/llm"
)

// toolCall accumulates the fragments of one streamed tool call.
type toolCall struct {
	index int64
	id    string
	name  string
	args  []byte
}

type stream struct {
	ctx  context.Context // the caller's: its end is not the provider's fault
	w    *llm.Watch      // the step's deadlines
	sdk  *ssestream.Stream[sdk.ChatCompletionChunk]
	resp *http.Response

	queue    []llm.Event
	cur      llm.Event
	err      error
	done     bool
	finished bool // a finish_reason arrived

	calls   []*toolCall
	byIndex map[int64]*toolCall
	chunkID string // names synthesized tool call ids
}

func newStream(ctx context.Context, w *llm.Watch, st *ssestream.Stream[sdk.ChatCompletionChunk], resp *http.Response) *stream {
	return &stream{ctx: ctx, w: w, sdk: st, resp: resp, byIndex: map[int64]*toolCall{}}
}

func (s *stream) Next() bool {
	for len(s.queue) == 0 {
		if s.done {
			return false
		}
		if s.sdk.Next() {
			s.w.Touch()
			s.handle(s.sdk.Current())
		} else {
			s.end()
		}
	}
	s.cur = s.queue[0]
	s.queue = s.queue[1:]
	return true
}

func (s *stream) Current() llm.Event { return s.cur }
func (s *stream) Err() error         { return s.err }

func (s *stream) Close() error {
	s.done = true
	s.queue = nil
	s.w.Stop()
	return s.sdk.Close()
}

func (s *stream) end() {
	s.done = true
	if s.sdk.Err() != nil || !s.finished {
		if se := s.w.Stalled(requestID(s.resp)); se != nil {
			s.err = se
			return
		}
	}
	if err := s.sdk.Err(); err != nil {
		s.err = mapError(s.ctx, err, s.resp)
		return
	}
	if err := s.ctx.Err(); err != nil {
		s.err = err
		return
	}
	// Without a finish_reason the connection was cut: the text may be partial
	// and the tool calls incomplete, so none of it may count as a finished step.
	if !s.finished {
		s.err = &llm.Error{Category: "provider_unavailable", Retryable: true, RequestID: requestID(s.resp),
			Err: errors.New("openai: stream ended without a finish_reason")}
	}
}

func (s *stream) handle(c sdk.ChatCompletionChunk) {
	for _, ch := range c.Choices {
		// The engine never asks for n > 1; other choices would interleave.
		if ch.Index != 0 {
			continue
		}
		if ch.Delta.Content != "" {
			s.queue = append(s.queue, llm.Event{Kind: llm.EventText, Text: ch.Delta.Content})
		}
		if ch.Delta.Refusal != "" {
			s.queue = append(s.queue, llm.Event{Kind: llm.EventText, Text: ch.Delta.Refusal})
		}
		for _, d := range ch.Delta.ToolCalls {
			s.accumulate(c.ID, d)
		}
		if ch.FinishReason != "" && !s.finished {
			s.finished = true
			s.flushToolCalls()
		}
	}
	if c.JSON.Usage.Valid() && (c.Usage.PromptTokens != 0 || c.Usage.CompletionTokens != 0) {
		s.queue = append(s.queue, llm.Event{Kind: llm.EventUsage, Usage: llm.Usage{
			InputTokens: c.Usage.PromptTokens, OutputTokens: c.Usage.CompletionTokens,
		}})
	}
}

func (s *stream) accumulate(chunkID string, d sdk.ChatCompletionChunkChoiceDeltaToolCall) {
	tc := s.byIndex[d.Index]
	// Some compatible servers reuse index 0 for every call; a new id means a new
	// call even at a known index.
	if tc == nil || (d.ID != "" && tc.id != "" && d.ID != tc.id) {
		tc = &toolCall{index: d.Index}
		s.byIndex[d.Index] = tc
		s.calls = append(s.calls, tc)
	}
	if d.ID != "" {
		tc.id = d.ID
	}
	if d.Function.Name != "" {
		tc.name = d.Function.Name
	}
	tc.args = append(tc.args, d.Function.Arguments...)
	if s.chunkID == "" {
		s.chunkID = chunkID
	}
}

func (s *stream) flushToolCalls() {
	sort.SliceStable(s.calls, func(i, j int) bool { return s.calls[i].index < s.calls[j].index })
	for i, tc := range s.calls {
		if tc.id == "" {
			// Local servers sometimes omit ids; the engine needs one per call,
			// unique in the conversation, hence the completion id or randomness.
			base := s.chunkID
			if base == "" {
				base = rand.Text()[:12]
			}
			tc.id = fmt.Sprintf("call_%s_%d", base, i)
		}
		s.queue = append(s.queue, llm.Event{Kind: llm.EventToolCall, ToolCall: llm.ToolCall{
			ID: tc.id, Name: tc.name, Arguments: tc.args,
		}})
	}
	s.calls = nil
	clear(s.byIndex)
}
