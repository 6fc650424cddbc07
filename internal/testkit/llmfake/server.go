package llmfake

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"unicode/utf8"

	"github.com/rtcagent/rtcagent/internal/llm"
)

// maxBody bounds a request body; transcripts in tests are far smaller.
const maxBody = 64 << 20

// dialect is what differs between the two wire formats.
type dialect interface {
	path() string
	requestIDHeader() string
	// decode turns a request body into the brain's request; stream reports the
	// body's "stream" flag and includeUsage its wish for a usage chunk.
	decode(body []byte) (req *llm.Request, stream, includeUsage bool, err error)
	// errorBody is the JSON body of an HTTP error response.
	errorBody(status int, message, requestID string) any
	// stream writes the brain's events as the provider's SSE, calling report with
	// the usage just before putting it on the wire: a client that has read the
	// whole stream must find it counted.
	stream(w *sseWriter, st llm.Stream, model string, seq int, includeUsage bool, report func(llm.Usage))
}

type failure struct {
	status  int
	message string
}

// Server is a fake provider endpoint backed by an llm.Model (the brain).
type Server struct {
	ts      *httptest.Server
	brain   llm.Model
	dialect dialect
	base    string

	mu       sync.Mutex
	requests [][]byte
	usage    llm.Usage
	failures []failure
	stalls   []int // events after which the next streams go silent
	seq      int
}

// NewOpenAI starts a fake OpenAI Chat Completions server; URL() includes /v1.
func NewOpenAI(brain llm.Model) *Server { return start(brain, openAIDialect{}, "/v1") }

// NewAnthropic starts a fake Anthropic Messages server; URL() is the bare origin,
// like https://api.anthropic.com.
func NewAnthropic(brain llm.Model) *Server { return start(brain, anthropicDialect{}, "") }

func start(brain llm.Model, d dialect, suffix string) *Server {
	s := &Server{brain: brain, dialect: d}
	s.ts = httptest.NewServer(http.HandlerFunc(s.serve))
	s.base = s.ts.URL + suffix
	return s
}

// URL is the base URL to put into the provider's Config.
func (s *Server) URL() string { return s.base }

// Close shuts the server down, closing open streams.
func (s *Server) Close() {
	s.ts.CloseClientConnections()
	s.ts.Close()
}

// CutConnections drops every open connection, as a network failure would.
func (s *Server) CutConnections() { s.ts.CloseClientConnections() }

// Requests returns copies of the raw bodies received, failed ones included.
func (s *Server) Requests() [][]byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([][]byte, len(s.requests))
	for i, b := range s.requests {
		out[i] = append([]byte(nil), b...)
	}
	return out
}

// Usage is the sum of the usage the server reported on the wire.
func (s *Server) Usage() llm.Usage {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.usage
}

// FailNext makes the next n requests fail with status and the provider's JSON
// error body.
func (s *Server) FailNext(n, status int) { s.FailNextWithMessage(n, status, "") }

// FailNextWithMessage is FailNext with a chosen error message, e.g. to look like
// a context-length error.
func (s *Server) FailNextWithMessage(n, status int, message string) {
	if message == "" {
		message = defaultMessage(status)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for range n {
		s.failures = append(s.failures, failure{status, message})
	}
}

func defaultMessage(status int) string {
	switch status {
	case http.StatusUnauthorized:
		return "fake: invalid API key"
	case http.StatusTooManyRequests:
		return "fake: rate limit reached"
	case http.StatusBadRequest:
		return "fake: invalid request"
	case 529:
		return "fake: overloaded"
	}
	return fmt.Sprintf("fake: failure with status %d", status)
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(io.LimitReader(r.Body, maxBody))
	routed := r.Method == http.MethodPost && r.URL.Path == s.dialect.path()
	s.mu.Lock()
	s.seq++
	seq := s.seq
	s.requests = append(s.requests, body)
	var fail *failure
	if routed && len(s.failures) > 0 {
		fail = &s.failures[0]
		s.failures = s.failures[1:]
	}
	stallAfter := -1
	if routed && fail == nil && len(s.stalls) > 0 {
		stallAfter = s.stalls[0]
		s.stalls = s.stalls[1:]
	}
	s.mu.Unlock()

	reqID := fmt.Sprintf("req_fake_%d", seq)
	w.Header().Set(s.dialect.requestIDHeader(), reqID)
	switch {
	case !routed:
		s.writeError(w, http.StatusNotFound, "fake: no route "+r.Method+" "+r.URL.Path, reqID)
		return
	case err != nil:
		s.writeError(w, http.StatusBadRequest, "fake: read body: "+err.Error(), reqID)
		return
	case fail != nil:
		s.writeError(w, fail.status, fail.message, reqID)
		return
	}
	req, stream, includeUsage, err := s.dialect.decode(body)
	if err != nil {
		s.writeError(w, http.StatusBadRequest, "fake: "+err.Error(), reqID)
		return
	}
	if !stream {
		s.writeError(w, http.StatusBadRequest, "fake: only stream=true is supported", reqID)
		return
	}
	st, err := s.brain.Stream(r.Context(), req)
	if err != nil {
		status, msg := statusOf(err)
		s.writeError(w, status, msg, reqID)
		return
	}
	defer st.Close()
	if stallAfter >= 0 {
		st = &stalling{Stream: st, left: stallAfter, ctx: r.Context()}
	}
	sw := newSSEWriter(w)
	s.dialect.stream(sw, st, modelOf(body), seq, includeUsage, func(u llm.Usage) {
		s.mu.Lock()
		s.usage.InputTokens += u.InputTokens
		s.usage.OutputTokens += u.OutputTokens
		s.mu.Unlock()
	})
}

func (s *Server) writeError(w http.ResponseWriter, status int, message, reqID string) {
	w.Header().Set("Content-Type", "application/json")
	if status == http.StatusTooManyRequests || status >= 500 {
		// Both SDKs honour it, which keeps tests of their retries fast.
		w.Header().Set("retry-after-ms", "10")
	}
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(s.dialect.errorBody(status, message, reqID))
}

// statusOf maps a brain error to the HTTP status a provider would answer with.
func statusOf(err error) (int, string) {
	me := llm.AsError(err)
	msg := err.Error()
	if me.Err != nil {
		msg = me.Err.Error()
	}
	if me.Status != 0 {
		return me.Status, msg
	}
	switch me.Category {
	case "rate_limited":
		return http.StatusTooManyRequests, msg
	case "provider_unavailable":
		return http.StatusServiceUnavailable, msg
	case "auth":
		return http.StatusUnauthorized, msg
	case "invalid_request", "context_length":
		return http.StatusBadRequest, msg
	}
	return http.StatusInternalServerError, msg
}

func modelOf(body []byte) string {
	var v struct {
		Model string `json:"model"`
	}
	_ = json.Unmarshal(body, &v)
	return v.Model
}

// sseWriter writes server-sent events and stops at the first write error (the
// client went away).
type sseWriter struct {
	w       http.ResponseWriter
	flusher http.Flusher
	err     error
}

func newSSEWriter(w http.ResponseWriter) *sseWriter {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	f, _ := w.(http.Flusher)
	sw := &sseWriter{w: w, flusher: f}
	sw.flush()
	return sw
}

func (s *sseWriter) flush() {
	if s.flusher != nil {
		s.flusher.Flush()
	}
}

// event writes one event; name "" omits the event line, as OpenAI does.
func (s *sseWriter) event(name string, v any) {
	data, err := json.Marshal(v)
	if err != nil {
		s.err = err
		return
	}
	s.raw(name, string(data))
}

func (s *sseWriter) raw(name, data string) {
	if s.err != nil {
		return
	}
	if name != "" {
		_, s.err = fmt.Fprintf(s.w, "event: %s\n", name)
	}
	if s.err == nil {
		_, s.err = fmt.Fprintf(s.w, "data: %s\n\n", data)
	}
	s.flush()
}

// streamFailed reports whether the brain's stream ended with an error worth
// telling the client: a cancelled request has no one left to tell.
func streamFailed(st llm.Stream) error {
	err := st.Err()
	if err == nil || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return nil
	}
	return err
}

// fragments cuts tool-call arguments into at least two pieces (when there are
// two runes or more) at rune boundaries, so clients must reassemble them.
func fragments(args string) []string {
	n := utf8.RuneCountInString(args)
	size := min(max(n/2, 1), 16)
	var out []string
	for len(args) > 0 {
		i, count := 0, 0
		for i < len(args) && count < size {
			_, w := utf8.DecodeRuneInString(args[i:])
			i += w
			count++
		}
		out = append(out, args[:i])
		args = args[i:]
	}
	return out
}

// mergeUsage applies the llm.EventUsage rule: the last non-zero value of each
// field wins.
func mergeUsage(into *llm.Usage, u llm.Usage) {
	if u.InputTokens != 0 {
		into.InputTokens = u.InputTokens
	}
	if u.OutputTokens != 0 {
		into.OutputTokens = u.OutputTokens
	}
}
