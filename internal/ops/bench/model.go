package bench

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rtcagent/rtcagent/internal/llm"
)

// model is a zero-latency scripted model for load: K steps of one call (ls or
// write, Options.Tool), then a final step of text chunks that carry their emit
// time. It is not internal/llm/scripted because that model keeps a deep copy of
// every request (for test assertions), which would grow without bound over a
// long run.
//
// A user message "calls=<n> batch=<b>" asks for a turn of n calls emitted b per
// step instead (the transcript-growth row fills a session's history with it).
//
// It measures the RTC round trip like internal/e2e/bench_test.go's timedModel:
// from the end of the stream that emitted a tool call to the next request that
// carries that call's result. Calls have process-unique ids, so the measurement
// works for any number of concurrent sessions.
type model struct {
	calls int    // tool calls per turn
	tool  string // the tool every call names (a key of benchTools)
	seq   atomic.Int64

	mu      sync.Mutex
	pending map[string]time.Time // call id → end of the emitting stream
	gaps    []time.Duration
	gapIDs  []string      // the call id of each gap
	first   []llm.Message // transcript of the latest request that opened a turn
	lastLen int           // messages in the latest request
}

// benchTools are the tools a bench model can call, with the arguments of every call.
var benchTools = map[string]string{"ls": `{}`, "write": `{"path": "/bench.txt", "content": "x"}`}

func newModel(calls int, tool string) *model {
	return &model{calls: calls, tool: tool, pending: map[string]time.Time{}}
}

func (m *model) Name() string { return "bench" }

// take returns the gaps recorded so far and resets them (one run per point).
func (m *model) take() []time.Duration {
	g, _ := m.takeCalls()
	return g
}

// takeCalls is take with the call id of each gap.
func (m *model) takeCalls() ([]time.Duration, []string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	g, ids := m.gaps, m.gapIDs
	m.gaps, m.gapIDs = nil, nil
	clear(m.pending)
	return g, ids
}

// dropGaps forgets the gaps recorded so far but keeps the calls still waiting
// for their results: the end of a warm-up, where the load goes on.
func (m *model) dropGaps() {
	m.mu.Lock()
	m.gaps, m.gapIDs = nil, nil
	m.mu.Unlock()
}

// opened returns the transcript of the latest request that started a turn (its
// last message is the user's) and the size of the latest request.
func (m *model) opened() (first []llm.Message, lastLen int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.first, m.lastLen
}

// plan reads a turn's shape from its user message: "calls=<n> batch=<b>", or the
// model's default of m.calls calls one per step.
func (m *model) plan(user string) (calls, batch int) {
	if _, err := fmt.Sscanf(user, "calls=%d batch=%d", &calls, &batch); err == nil && calls > 0 && batch > 0 {
		return calls, batch
	}
	return m.calls, 1
}

func (m *model) Stream(_ context.Context, req *llm.Request) (llm.Stream, error) {
	now := time.Now()
	done, user := 0, "" // tool results since the last user message, and that message
	for i := len(req.Messages) - 1; i >= 0; i-- {
		if req.Messages[i].Role == llm.RoleUser {
			user = req.Messages[i].Text
			break
		}
		if req.Messages[i].Role == llm.RoleTool {
			done++
		}
	}
	m.mu.Lock()
	// Every result after the last assistant message arrives with this request.
	for i := len(req.Messages) - 1; i >= 0 && req.Messages[i].Role == llm.RoleTool; i-- {
		id := req.Messages[i].ToolCallID
		if t, ok := m.pending[id]; ok {
			m.gaps = append(m.gaps, now.Sub(t))
			m.gapIDs = append(m.gapIDs, id)
			delete(m.pending, id)
		}
	}
	if n := len(req.Messages); n > 0 && req.Messages[n-1].Role == llm.RoleUser {
		m.first = req.Messages
	}
	m.lastLen = len(req.Messages)
	m.mu.Unlock()
	s := &stream{m: m}
	if calls, batch := m.plan(user); done < calls {
		for range min(batch, calls-done) {
			id := "bc" + strconv.FormatInt(m.seq.Add(1), 36)
			s.calls = append(s.calls, id)
			s.events = append(s.events, llm.Event{Kind: llm.EventToolCall, ToolCall: llm.ToolCall{ID: id, Name: m.tool, Arguments: []byte(benchTools[m.tool])}})
		}
	} else {
		// Chunks are stamped when emitted (Next), not here, so the Live latency
		// starts at the moment the engine receives the chunk.
		s.chunks = liveChunks
	}
	s.events = append(s.events, llm.Event{Kind: llm.EventUsage, Usage: llm.Usage{InputTokens: 1, OutputTokens: 1}})
	return s, nil
}

// liveChunks is the number of stamped text chunks of the final step.
const liveChunks = 4

type stream struct {
	m      *model
	calls  []string // ids of the calls emitted, timed when the stream ends
	chunks int
	events []llm.Event
	cur    llm.Event
}

func (s *stream) Next() bool {
	if s.chunks > 0 {
		s.chunks--
		s.cur = llm.Event{Kind: llm.EventText, Text: stamp(time.Now())}
		return true
	}
	if len(s.events) > 0 {
		s.cur, s.events = s.events[0], s.events[1:]
		return true
	}
	if len(s.calls) > 0 {
		now := time.Now()
		s.m.mu.Lock()
		for _, id := range s.calls {
			s.m.pending[id] = now
		}
		s.m.mu.Unlock()
		s.calls = nil
	}
	return false
}

func (s *stream) Current() llm.Event { return s.cur }
func (s *stream) Err() error         { return nil }
func (s *stream) Close() error       { return nil }

// stamp and unstamp carry a wall-clock time in a text chunk: "[t=<unix ns>]".
func stamp(t time.Time) string { return fmt.Sprintf("[t=%d]", t.UnixNano()) }

// unstamps returns every stamp in a delta: the server may coalesce chunks.
func unstamps(s string) []time.Time {
	var out []time.Time
	for {
		_, rest, ok := strings.Cut(s, "[t=")
		if !ok {
			return out
		}
		num, after, ok := strings.Cut(rest, "]")
		if !ok {
			return out
		}
		if n, err := strconv.ParseInt(num, 10, 64); err == nil {
			out = append(out, time.Unix(0, n))
		}
		s = after
	}
}
