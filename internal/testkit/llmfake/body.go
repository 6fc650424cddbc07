package llmfake

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/rtcagent/rtcagent/internal/llm"
)

// BodyServer answers every request with the body set last, for fuzzing a
// provider's stream decoder through its real SDK client. Fuzz inputs run one at
// a time in a worker process, so one server serves all of them.
type BodyServer struct {
	mu   sync.Mutex
	body []byte
	m    llm.Model
}

// NewBodyServer starts the server and opens the model on its URL with open.
func NewBodyServer(tb testing.TB, open func(baseURL string) (llm.Model, error)) *BodyServer {
	s := &BodyServer{}
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		body := s.body
		s.mu.Unlock()
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = w.Write(body)
	}))
	tb.Cleanup(ts.Close)
	m, err := open(ts.URL)
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
	go func() {
		st, err := s.m.Stream(ctx, &llm.Request{Messages: []llm.Message{{Role: llm.RoleUser, Text: "x"}}})
		if err != nil {
			done <- Result{Err: err}
			return
		}
		done <- Drain(st)
	}()
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
