package scripted

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/rtcagent/rtcagent/internal/llm"
)

// EndOfScript is the text emitted when a turn has no step left.
const EndOfScript = "(end of script)"

// Model is a deterministic llm.Model driven by a Script. Safe for concurrent use.
type Model struct {
	c *compiled

	mu       sync.Mutex
	requests []llm.Request
}

var _ llm.Model = (*Model)(nil)

// New validates the script (non-empty turns, steps and tool names, regexps that
// compile, known error categories) and returns a model for it.
func New(script Script) (*Model, error) {
	// A copy, so the caller's later edits cannot change a validated script.
	c, err := compile(copyScript(script))
	if err != nil {
		return nil, err
	}
	return &Model{c: c}, nil
}

// Name returns "scripted:<script name>".
func (m *Model) Name() string { return "scripted:" + m.c.script.Name }

// Script returns a deep copy of the script the model was built from.
func (m *Model) Script() Script { return copyScript(m.c.script) }

func copyScript(s Script) Script {
	out := Script{Name: s.Name, Turns: make([]Turn, len(s.Turns))}
	if s.Summary != nil {
		sum := *s.Summary
		out.Summary = &sum
	}
	for i, t := range s.Turns {
		t.Steps = append([]Step(nil), t.Steps...)
		for j := range t.Steps {
			st := &t.Steps[j]
			st.Chunks = append([]string(nil), st.Chunks...)
			st.ToolCalls = append([]ToolCall(nil), st.ToolCalls...)
			for k := range st.ToolCalls {
				tc := &st.ToolCalls[k]
				tc.Arguments = append(json.RawMessage(nil), tc.Arguments...)
				if tc.RawArguments != nil {
					raw := *tc.RawArguments
					tc.RawArguments = &raw
				}
			}
			if st.Error != nil {
				e := *st.Error
				st.Error = &e
			}
		}
		out.Turns[i] = t
	}
	return out
}

// Requests returns deep copies of every request received, in arrival order.
func (m *Model) Requests() []llm.Request {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make([]llm.Request, len(m.requests))
	for i, r := range m.requests {
		out[i] = copyRequest(r)
	}
	return out
}

// Stream plans the whole step up front, so what is emitted depends only on the
// request; only the pacing (delay_ms) and cancellation depend on time.
func (m *Model) Stream(ctx context.Context, req *llm.Request) (llm.Stream, error) {
	if req == nil {
		return nil, &llm.Error{Category: "invalid_request", Err: errors.New("scripted: nil request")}
	}
	m.mu.Lock()
	m.requests = append(m.requests, copyRequest(*req))
	m.mu.Unlock()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return m.plan(ctx, req), nil
}

// transcript facts the script's selection rules and templates depend on.
type facts struct {
	users      int    // user messages in the request (with those a summary stands for)
	lastUser   string // text of the last user message
	stepIndex  int    // assistant messages after the last user message
	lastResult string // text of the last tool message
	inputChars int
}

// readFacts reads the request as the conversation it continues. A summary block
// (see llm.SummaryOpen) stands for the messages it replaced: the state line the
// scripted model wrote into it restores their counts, so turn and step selection
// and tool call ids go on as if nothing had been summarised.
func readFacts(req *llm.Request) facts {
	var f facts
	stepBase := 0
	lastUserAt := -1
	for i, msg := range req.Messages {
		f.inputChars += utf8.RuneCountInString(msg.Text)
		for _, tc := range msg.ToolCalls {
			f.inputChars += utf8.RuneCountInString(tc.Name) + utf8.RuneCount(tc.Arguments)
		}
		switch msg.Role {
		case llm.RoleUser:
			text := msg.Text
			if body, rest, ok := splitSummaryBlock(text); ok {
				if st, ok := parseState(body); ok {
					f.users, f.lastUser, stepBase = st.Users, st.User, st.Step
				}
				lastUserAt = i
				if text = rest; text == "" {
					continue
				}
			}
			f.users++
			f.lastUser = text
			stepBase = 0
			lastUserAt = i
		case llm.RoleTool:
			f.lastResult = msg.Text
		}
	}
	f.stepIndex = stepBase
	for _, msg := range req.Messages[lastUserAt+1:] {
		if msg.Role == llm.RoleAssistant {
			f.stepIndex++
		}
	}
	return f
}

// selectTurn returns the index of the turn answering the last user message, or
// -1 when no turn matches and there is no fallback.
func (c *compiled) selectTurn(f facts) int {
	for i, re := range c.matchers {
		if re != nil && re.MatchString(f.lastUser) {
			return i
		}
	}
	if len(c.fallback) == 0 {
		return -1
	}
	n := max(f.users-1, 0)
	return c.fallback[n%len(c.fallback)]
}

func (m *Model) plan(ctx context.Context, req *llm.Request) *stream {
	if strings.HasPrefix(req.System, llm.SummarySystem) {
		return m.planSummary(ctx, req)
	}
	f := readFacts(req)
	s := &stream{ctx: ctx}
	ti := m.c.selectTurn(f)
	var step Step
	switch {
	case ti < 0:
		step = Step{Text: fmt.Sprintf("(no turn of script %q matches this message)", m.c.script.Name)}
	case f.stepIndex >= len(m.c.script.Turns[ti].Steps):
		step = Step{Text: EndOfScript}
	default:
		step = m.c.script.Turns[ti].Steps[f.stepIndex]
	}
	s.delay = time.Duration(step.DelayMS) * time.Millisecond

	replace := strings.NewReplacer("{{last_result}}", f.lastResult, "{{user}}", f.lastUser).Replace
	expand := func(text string) string { return m.c.expandFinds(replace(text), req) }
	var pieces []string
	if len(step.Chunks) > 0 {
		for _, c := range step.Chunks {
			pieces = append(pieces, expand(c))
		}
	} else {
		pieces = splitWords(expand(step.Text))
	}
	outChars := s.addText(pieces)
	if step.Error != nil {
		s.failure = &llm.Error{
			Category:  step.Error.Category,
			Retryable: step.Error.Retryable,
			Status:    step.Error.Status,
			Err:       errors.New(step.Error.Message),
		}
		return s
	}
	for i, tc := range step.ToolCalls {
		id, args := fmt.Sprintf("call_%d_%d_%d", f.users, f.stepIndex, i), tc.argumentsText()
		for _, p := range splitN(string(args), tc.ArgumentChunks) {
			s.events = append(s.events, llm.Event{Kind: llm.EventToolCallDelta, Delta: llm.ToolCallDelta{Index: i, ID: id, Name: tc.Name, Args: p}})
		}
		s.events = append(s.events, llm.Event{Kind: llm.EventToolCall, ToolCall: llm.ToolCall{ID: id, Name: tc.Name, Arguments: args}})
	}
	s.addUsage(f.inputChars, outChars)
	return s
}

// addText adds one text event per non-empty piece and returns the characters.
func (s *stream) addText(pieces []string) int {
	chars := 0
	for _, p := range pieces {
		if p == "" {
			continue
		}
		chars += utf8.RuneCountInString(p)
		s.events = append(s.events, llm.Event{Kind: llm.EventText, Text: p})
	}
	return chars
}

func (s *stream) addUsage(inChars, outChars int) {
	s.events = append(s.events, llm.Event{Kind: llm.EventUsage, Usage: llm.Usage{
		InputTokens:  int64(max(inChars/4, 1)),
		OutputTokens: int64(max(outChars/4, 1)),
	}})
}

// splitN cuts text into n pieces of about the same length, at rune
// boundaries, that concatenate to text (none when n is 0).
func splitN(text string, n int) []string {
	var out []string
	for k := n; k > 0; k-- {
		cut := len(text) / k
		for cut < len(text) && !utf8.RuneStart(text[cut]) {
			cut++
		}
		out = append(out, text[:cut])
		text = text[cut:]
	}
	return out
}

// splitWords cuts text into pieces of leading whitespace plus one word, so the
// stream looks like a model's while the pieces concatenate to text exactly.
func splitWords(text string) []string {
	var out []string
	start := 0
	inSpace := true
	for i, r := range text {
		space := unicode.IsSpace(r)
		if !space && inSpace && i > start && strings.TrimSpace(text[start:i]) != "" {
			out = append(out, text[start:i])
			start = i
		}
		inSpace = space
	}
	if start < len(text) {
		out = append(out, text[start:])
	}
	return out
}

type stream struct {
	ctx     context.Context
	delay   time.Duration
	events  []llm.Event
	failure error
	next    int
	cur     llm.Event
	err     error
	closed  bool
}

func (s *stream) Next() bool {
	if s.closed || s.err != nil {
		return false
	}
	if err := s.ctx.Err(); err != nil {
		s.err = err
		return false
	}
	if s.next >= len(s.events) {
		s.err = s.failure
		return false
	}
	if s.next > 0 && s.delay > 0 {
		t := time.NewTimer(s.delay)
		select {
		case <-s.ctx.Done():
			t.Stop()
			s.err = s.ctx.Err()
			return false
		case <-t.C:
		}
	}
	s.cur = s.events[s.next]
	s.next++
	return true
}

func (s *stream) Current() llm.Event { return s.cur }
func (s *stream) Err() error         { return s.err }

func (s *stream) Close() error {
	s.closed = true
	return nil
}

func copyRequest(r llm.Request) llm.Request {
	out := r
	out.Messages = make([]llm.Message, len(r.Messages))
	for i, msg := range r.Messages {
		msg.ToolCalls = append([]llm.ToolCall(nil), msg.ToolCalls...)
		for j := range msg.ToolCalls {
			msg.ToolCalls[j].Arguments = append([]byte(nil), msg.ToolCalls[j].Arguments...)
		}
		out.Messages[i] = msg
	}
	out.Tools = append([]llm.ToolSpec(nil), r.Tools...)
	for i := range out.Tools {
		out.Tools[i].Parameters = append([]byte(nil), out.Tools[i].Parameters...)
	}
	return out
}
