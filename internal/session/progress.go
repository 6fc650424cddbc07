package session

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/rtcagent/rtcagent/internal/lifecycle"
	"github.com/rtcagent/rtcagent/internal/protocol"
	"github.com/rtcagent/rtcagent/internal/store"
)

// progressEvery is the shortest time between two writes of a server call's
// progress: each write is an rtc.updated to every tab of the user and a row in
// the Topic history, so a tool that reports a thousand times a second costs one
// update a second.
const progressEvery = time.Second

// progressSink keeps the latest progress of one server call until the call's
// progress writer takes it. put never blocks (it runs on the MCP connection's
// reader); a value that comes while one waits replaces it: the last value wins.
type progressSink struct {
	mu     sync.Mutex
	latest *protocol.RTCProgress
	closed bool
	wake   chan struct{} // one signal: a value waits
}

func newProgressSink() *progressSink { return &progressSink{wake: make(chan struct{}, 1)} }

func (s *progressSink) put(p protocol.RTCProgress) {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return
	}
	s.latest = &p
	s.mu.Unlock()
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// take returns the value that waits, if any, and forgets it.
func (s *progressSink) take() *protocol.RTCProgress {
	s.mu.Lock()
	defer s.mu.Unlock()
	p := s.latest
	s.latest = nil
	return p
}

// close drops what waits and every later value: the call ended.
func (s *progressSink) close() {
	s.mu.Lock()
	s.closed, s.latest = true, nil
	s.mu.Unlock()
}

// watchProgress starts the progress writer of server call id and returns the
// sink the call's progress goes to and the function that stops the writer once
// the call returned. The writer records a value as soon as it comes, then at
// most one every progressEvery: a value that comes within that window is
// written when it ends (the latest one only). stop waits for a write under way,
// so no progress is written after it returned, that is before the call's end
// is recorded. Writes are under the worker's lease, outside the call (no
// transaction waits on the MCP server), and a compare-and-set on the executing
// RTC: a call that ended meanwhile (stopped, timed out, on any node) stops the
// writer.
func (r *Runner) watchProgress(ctx context.Context, o *owner, id string) (*progressSink, func()) {
	sink := newProgressSink()
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		r.writeProgress(ctx, o, id, sink)
	}()
	return sink, func() {
		sink.close()
		cancel()
		<-done
	}
}

func (r *Runner) writeProgress(ctx context.Context, o *owner, id string, sink *progressSink) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-sink.wake:
		}
		p := sink.take()
		if p == nil {
			continue
		}
		written := false
		var err error
		for range 3 { // a concurrent change of the RTC: read it again
			err = r.fenced(ctx, o, func(tx store.Tx) error {
				var err error
				written, err = lifecycle.ProgressServerRTC(tx, id, *p)
				return err
			})
			if !errors.Is(err, store.ErrConflict) {
				break
			}
		}
		switch {
		case ctx.Err() != nil || errors.Is(err, store.ErrLeaseLost):
			return
		case err != nil:
			r.log.Warn("record a server call's progress", "rtc", id, "err", err)
		case !written:
			return // the call ended: nothing more to show
		}
		t := time.NewTimer(progressEvery)
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-t.C:
		}
	}
}
