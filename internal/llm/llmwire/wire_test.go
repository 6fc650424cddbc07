package llmwire_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/rtcagent/rtcagent/internal/llm"
	"github.com/rtcagent/rtcagent/internal/llm/llmwire"
)

// source is an SDK stream of made-up events; err comes after the events, or at
// once when early (a request that failed before any event).
type source struct {
	events []string
	err    error
	early  bool
	pos    int
	cur    string
	closed bool
}

func (s *source) Next() bool {
	if s.early || s.pos == len(s.events) {
		return false
	}
	s.cur = s.events[s.pos]
	s.pos++
	return true
}

func (s *source) Current() string { return s.cur }
func (s *source) Close() error    { s.closed = true; return nil }

func (s *source) Err() error {
	if s.early || s.pos == len(s.events) {
		return s.err
	}
	return nil
}

// decoder reads "text:<t>", "call:<id>", "usage:<n>" (n input and output
// tokens) and "stop".
type decoder struct{}

func (decoder) Decode(ev string, a *llmwire.Assembler) {
	kind, arg, _ := strings.Cut(ev, ":")
	switch kind {
	case "text":
		a.Text(arg)
	case "call":
		a.ToolCall(llm.ToolCall{ID: arg, Name: "ls", Arguments: []byte("{}")})
	case "usage":
		n, _ := strconv.ParseInt(arg, 10, 64)
		a.Usage(n, n)
	case "stop":
		a.Finish()
	}
}

var errAPI = errors.New("the provider's own error")

var wire = &llmwire.Wire[string, string]{
	Provider: "fake", RequestIDHeader: "x-id", FinishEvent: "stop",
	Decoder: func() llmwire.Decoder[string] { return decoder{} },
	APIError: func(err error, _ *http.Response) *llm.Error {
		if errors.Is(err, errAPI) {
			return &llm.Error{Category: llm.CategoryAuth, Err: err}
		}
		return nil
	},
}

// run streams src as one step and drains it.
func run(ctx context.Context, src *source) (events []llm.Event, err error) {
	send := func(_ context.Context, _ string, into **http.Response) llmwire.Source[string] {
		*into = &http.Response{Header: http.Header{"X-Id": {"req_1"}}}
		return src
	}
	build := func(*llm.Request) (string, error) { return "params", nil }
	st, err := wire.Stream(ctx, llm.Deadlines{}, &llm.Request{}, build, send)
	if err != nil {
		return nil, err
	}
	defer st.Close()
	for st.Next() {
		events = append(events, st.Current())
	}
	return events, st.Err()
}

func TestEventsInOrder(t *testing.T) {
	src := &source{events: []string{"usage:0", "text:Hi", "text:", "call:c1", "usage:12", "stop"}}
	got, err := run(context.Background(), src)
	want := []llm.Event{
		{Kind: llm.EventText, Text: "Hi"},
		{Kind: llm.EventToolCall, ToolCall: llm.ToolCall{ID: "c1", Name: "ls", Arguments: []byte("{}")}},
		{Kind: llm.EventUsage, Usage: llm.Usage{InputTokens: 12, OutputTokens: 12}},
	}
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("events %+v, err %v; want %+v (empty text and usage left out)", got, err, want)
	}
	if !src.closed {
		t.Fatal("Close did not close the source")
	}
}

func TestCutBeforeFinish(t *testing.T) {
	got, err := run(context.Background(), &source{events: []string{"text:partial"}})
	var me *llm.Error
	if !errors.As(err, &me) || me.Category != llm.CategoryUnavailable || !me.Retryable || me.RequestID != "req_1" ||
		me.Error() != "model provider_unavailable (status 0, request req_1): fake: stream ended without stop" {
		t.Fatalf("err = %v", err)
	}
	if len(got) != 1 || got[0].Text != "partial" {
		t.Fatalf("events before the cut %+v", got)
	}
}

func TestFailures(t *testing.T) {
	for _, c := range []struct {
		name      string
		src       *source
		category  string
		retryable bool
	}{
		{"provider's error at the request", &source{err: errAPI, early: true}, llm.CategoryAuth, false},
		{"provider's error in the stream", &source{events: []string{"text:a"}, err: errAPI}, llm.CategoryAuth, false},
		{"transport failure", &source{events: []string{"text:a"}, err: io.ErrUnexpectedEOF}, llm.CategoryUnavailable, true},
		{"anything else", &source{err: errors.New("odd"), early: true}, llm.CategoryUnknown, false},
	} {
		_, err := run(context.Background(), c.src)
		var me *llm.Error
		if !errors.As(err, &me) || me.Category != c.category || me.Retryable != c.retryable || me.RequestID != "req_1" {
			t.Errorf("%s: err = %v", c.name, err)
		}
	}
}

func TestCallerCancelIsNotAProviderError(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, src := range []*source{
		{err: errAPI, early: true},
		{events: []string{"text:a"}, err: io.ErrUnexpectedEOF},
		{events: []string{"text:a"}},
		{events: []string{"text:a", "stop"}},
	} {
		_, err := run(ctx, src)
		var me *llm.Error
		if !errors.Is(err, context.Canceled) || errors.As(err, &me) {
			t.Errorf("%+v: err = %v (%T), want context.Canceled itself", src, err, err)
		}
	}
}

func TestRequestThatCannotBeBuilt(t *testing.T) {
	sent := false
	send := func(context.Context, int, **http.Response) llmwire.Source[string] { sent = true; return &source{} }
	build := func(*llm.Request) (int, error) { return 0, errors.New("tool t: bad schema") }
	w := &llmwire.Wire[int, string]{Provider: "fake"}
	_, err := w.Stream(context.Background(), llm.Deadlines{}, &llm.Request{}, build, send)
	var me *llm.Error
	if !errors.As(err, &me) || me.Category != llm.CategoryInvalid || me.Err.Error() != "fake: tool t: bad schema" || sent {
		t.Fatalf("err = %v, sent %v", err, sent)
	}
}
