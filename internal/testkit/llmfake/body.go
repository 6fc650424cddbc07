package llmfake

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/rtcagent/rtcagent/internal/llm"
	"github.com/rtcagent/rtcagent/internal/llm/llmwire"
)

// BodyServer answers every request with the body set last, for fuzzing a
// provider's stream decoder through its real SDK client. Fuzz inputs run one at
// a time in a worker process, so one server serves all of them.
type BodyServer struct {
	mu   sync.Mutex
	body []byte
	m    llm.Model
}

// NewBodyServer starts the server and opens the model on its URL with open
// (the provider's New).
func NewBodyServer(tb testing.TB, open func(llmwire.Config) (llm.Model, error)) *BodyServer {
	s := &BodyServer{}
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		body := s.body
		s.mu.Unlock()
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = w.Write(body)
	}))
	tb.Cleanup(ts.Close)
	m, err := open(llmwire.Config{BaseURL: ts.URL, APIKey: "fuzz-key", Model: "m"})
	if err != nil {
		tb.Fatal(err)
	}
	s.m = m
	return s
}

// Stream decodes body through the model; a decoder that does not end within the
// bound fails the input as a hang.
func (s *BodyServer) Stream(t testing.TB, body []byte) Result {
	t.Helper()
	s.mu.Lock()
	s.body = body
	s.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	done := make(chan Result, 1)
	go func() { done <- Ask(ctx, s.m, "x") }()
	select {
	case r := <-done:
		if ctx.Err() != nil {
			t.Fatalf("decoding took longer than 10 s (%v)", r.Err)
		}
		return r
	case <-time.After(15 * time.Second):
		t.Fatal("decoder hangs")
		return Result{}
	}
}

var categories = map[string]bool{llm.CategoryUnavailable: true, llm.CategoryRateLimited: true, llm.CategoryAuth: true,
	llm.CategoryContextLength: true, llm.CategoryInvalid: true, llm.CategoryUnknown: true}

// CheckCategorised fails t unless err is an *llm.Error of a known category.
func CheckCategorised(t testing.TB, err error) {
	t.Helper()
	var le *llm.Error
	if !errors.As(err, &le) || !categories[le.Category] {
		t.Fatalf("error %v (%T) is not a categorised llm.Error", err, err)
	}
}

// CheckOutput holds for any body a decoder was fed: an error is a categorised
// *llm.Error; else the output holds no more text than the body, nor more tool
// arguments than the body plus perCall bytes a call (what a provider may add
// itself, as Anthropic's "{}" for a tool without input).
func CheckOutput(t testing.TB, body []byte, r Result, perCall int) {
	t.Helper()
	if r.Err != nil {
		CheckCategorised(t, r.Err)
		return
	}
	// JSON escapes can only shrink text: \u00e9 is 6 bytes for 2.
	if len(r.Text) > len(body) {
		t.Fatalf("%d bytes of text from a %d byte body", len(r.Text), len(body))
	}
	n := 0
	for _, tc := range r.ToolCalls {
		n += len(tc.Arguments)
	}
	if n > len(body)+perCall*len(r.ToolCalls) {
		t.Fatalf("%d bytes of tool arguments from a %d byte body", n, len(body))
	}
}

// ValidText reports whether every one of vs is valid UTF-8, so that it comes
// out of a JSON string as it went in: the encoder replaces invalid bytes, and
// a fuzz target that wants its strings back exactly skips such inputs.
func ValidText(vs ...string) bool {
	for _, v := range vs {
		if !utf8.ValidString(v) {
			return false
		}
	}
	return true
}
