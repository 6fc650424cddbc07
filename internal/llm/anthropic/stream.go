package anthropic

import (
	"context"
	"errors"
	"net/http"

	sdk "github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/packages/ssestream"

	"github.com/rtcagent/rtcagent/internal/llm"
)

// toolUse accumulates one tool_use content block.
type toolUse struct {
	id, name   string
	args       []byte
	startInput string // input given whole at block start, used if no delta comes
}

type stream struct {
	ctx  context.Context // the caller's: its end is not the provider's fault
	w    *llm.Watch      // the step's deadlines
	sdk  *ssestream.Stream[sdk.MessageStreamEventUnion]
	resp *http.Response

	queue   []llm.Event
	cur     llm.Event
	err     error
	done    bool
	stopped bool // message_stop arrived

	tools map[int64]*toolUse // open tool_use blocks by content index
}

func newStream(ctx context.Context, w *llm.Watch, st *ssestream.Stream[sdk.MessageStreamEventUnion], resp *http.Response) *stream {
	return &stream{ctx: ctx, w: w, sdk: st, resp: resp, tools: map[int64]*toolUse{}}
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
	if s.sdk.Err() != nil || !s.stopped {
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
	// Without message_stop the connection was cut: the step is incomplete.
	if !s.stopped {
		s.err = &llm.Error{Category: "provider_unavailable", Retryable: true, RequestID: requestID(s.resp),
			Err: errors.New("anthropic: stream ended without message_stop")}
	}
}

func (s *stream) handle(ev sdk.MessageStreamEventUnion) {
	switch ev.Type {
	case "message_start":
		u := ev.Message.Usage
		s.usage(u.InputTokens+u.CacheCreationInputTokens+u.CacheReadInputTokens, u.OutputTokens)
	case "content_block_start":
		switch cb := ev.ContentBlock; cb.Type {
		case "text":
			s.text(cb.Text)
		case "tool_use":
			s.tools[ev.Index] = &toolUse{id: cb.ID, name: cb.Name, startInput: cb.JSON.Input.Raw()}
		}
	case "content_block_delta":
		switch ev.Delta.Type {
		case "text_delta":
			s.text(ev.Delta.Text)
		case "input_json_delta":
			if t := s.tools[ev.Index]; t != nil {
				t.args = append(t.args, ev.Delta.PartialJSON...)
			}
		}
	case "content_block_stop":
		if t := s.tools[ev.Index]; t != nil {
			delete(s.tools, ev.Index)
			s.queue = append(s.queue, llm.Event{Kind: llm.EventToolCall, ToolCall: llm.ToolCall{
				ID: t.id, Name: t.name, Arguments: t.arguments(),
			}})
		}
	case "message_delta":
		u := ev.Usage
		s.usage(u.InputTokens+u.CacheCreationInputTokens+u.CacheReadInputTokens, u.OutputTokens)
	case "message_stop":
		s.stopped = true
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

func (s *stream) text(t string) {
	if t != "" {
		s.queue = append(s.queue, llm.Event{Kind: llm.EventText, Text: t})
	}
}

// usage reports input tokens including cached ones, so they mean the size of
// the context as OpenAI's prompt_tokens do.
func (s *stream) usage(in, out int64) {
	if in != 0 || out != 0 {
		s.queue = append(s.queue, llm.Event{Kind: llm.EventUsage, Usage: llm.Usage{InputTokens: in, OutputTokens: out}})
	}
}
