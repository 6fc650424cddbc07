package agui

import (
	"encoding/json"
	"net/http"
	"time"
)

// writeTimeout bounds one write to a client that stopped reading.
const writeTimeout = 30 * time.Second

// stream writes a run's events as server-sent events, each flushed at once.
type stream struct {
	w       http.ResponseWriter
	rc      *http.ResponseController
	started bool
	failed  bool // a write failed: the client is gone
}

func newStream(w http.ResponseWriter) *stream {
	return &stream{w: w, rc: http.NewResponseController(w)}
}

func (s *stream) event(v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return s.write("data: " + string(b) + "\n\n")
}

func (s *stream) comment(text string) error { return s.write(": " + text + "\n\n") }

func (s *stream) write(frame string) error {
	if !s.started {
		s.started = true
		h := s.w.Header()
		h.Set("Content-Type", "text/event-stream; charset=utf-8")
		h.Set("Cache-Control", "no-cache, no-store")
		h.Set("X-Accel-Buffering", "no")
		s.w.WriteHeader(http.StatusOK)
	}
	_ = s.rc.SetWriteDeadline(time.Now().Add(writeTimeout))
	_, err := s.w.Write([]byte(frame))
	if err == nil {
		err = s.rc.Flush()
	}
	if err != nil {
		s.failed = true
	}
	return err
}
