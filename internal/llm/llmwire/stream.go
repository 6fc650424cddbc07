package llmwire

import (
	"context"
	"net/http"

	"github.com/rtcagent/rtcagent/internal/llm"
)

// stream is the llm.Stream of one step: it reads the SDK's source through the
// provider's decoder, one event at a time, under the step's deadlines.
type stream[P, E any] struct {
	ctx   context.Context // the caller's: its end is not the provider's fault
	watch *llm.Watch      // the step's deadlines
	src   Source[E]
	resp  *http.Response
	wire  *Wire[P, E]
	dec   Decoder[E]

	asm  Assembler
	cur  llm.Event
	err  error
	done bool
}

func (s *stream[P, E]) Next() bool {
	for {
		if ev, ok := s.asm.next(); ok {
			s.cur = ev
			return true
		}
		if s.done {
			return false
		}
		if s.src.Next() {
			s.watch.Touch()
			s.dec.Decode(s.src.Current(), &s.asm)
		} else {
			s.end()
		}
	}
}

func (s *stream[P, E]) Current() llm.Event { return s.cur }
func (s *stream[P, E]) Err() error         { return s.err }

func (s *stream[P, E]) Close() error {
	s.done = true
	s.asm.drop()
	s.watch.Stop()
	return s.src.Close()
}

// end sets the error the stream ends with, if any: the source's failure, a cut
// before the step finished, or the caller's ctx ending after it did.
func (s *stream[P, E]) end() {
	s.done = true
	err := s.src.Err()
	switch {
	case err != nil:
		s.err = s.wire.failure(s.ctx, s.watch, err, s.resp)
	case !s.asm.Finished():
		s.err = s.wire.cut(s.ctx, s.watch, s.resp)
	default:
		s.err = s.ctx.Err()
	}
}
