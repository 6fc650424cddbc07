package llmfake

import (
	"context"

	"github.com/rtcagent/rtcagent/internal/llm"
)

// StallNext makes the next n streams go silent after `after` events of the brain
// (0: right after the response headers): nothing more is sent and the connection
// stays open until the client goes away, as a provider that hangs mid-body.
func (s *Server) StallNext(n, after int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for range n {
		s.stalls = append(s.stalls, after)
	}
}

// stalling passes on the first left events, then blocks until ctx ends.
type stalling struct {
	llm.Stream
	left int
	ctx  context.Context
}

func (s *stalling) Next() bool {
	if s.left == 0 {
		<-s.ctx.Done()
		return false
	}
	s.left--
	return s.Stream.Next()
}

func (s *stalling) Err() error {
	if s.left == 0 {
		return s.ctx.Err()
	}
	return s.Stream.Err()
}
