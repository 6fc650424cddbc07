package cancels

import (
	"context"
	"sync"
)

// stoppedKept bounds the ids Stop keeps for work not registered yet.
const stoppedKept = 1024

// Set holds a cancel function per id. The zero value is empty and ready.
type Set struct {
	mu sync.Mutex
	m  map[string]context.CancelFunc
	// stopped: ids Stop was called for, the latest stoppedKept, oldest
	// first in order; an Add of one cancels at once.
	stopped map[string]bool
	order   []string
}

// Add registers cancel under id, replacing one registered before, and returns
// the function that removes it: defer it where the work ends. When id was
// stopped (Stop), cancel is called at once.
func (s *Set) Add(id string, cancel context.CancelFunc) (remove func()) {
	s.mu.Lock()
	if s.m == nil {
		s.m = map[string]context.CancelFunc{}
	}
	s.m[id] = cancel
	stopped := s.stopped[id]
	s.mu.Unlock()
	if stopped {
		cancel()
	}
	return func() {
		s.mu.Lock()
		delete(s.m, id)
		s.mu.Unlock()
	}
}

// Cancel calls the cancel registered under id, if any, outside the lock.
func (s *Set) Cancel(id string) {
	s.mu.Lock()
	cancel := s.m[id]
	s.mu.Unlock()
	if cancel != nil {
		cancel()
	}
}

// Stop is Cancel for work that must not run once its id is stopped: the id
// is also kept (the latest 1,024 ids stopped), so that work registered under
// it later, having started before the stop but registered after it, is
// cancelled as soon as it is.
func (s *Set) Stop(id string) {
	s.mu.Lock()
	if !s.stopped[id] {
		if s.stopped == nil {
			s.stopped = map[string]bool{}
		}
		if len(s.order) == stoppedKept {
			delete(s.stopped, s.order[0])
			s.order = s.order[1:]
		}
		s.stopped[id] = true
		s.order = append(s.order, id)
	}
	s.mu.Unlock()
	s.Cancel(id)
}

// CancelAll calls every registered cancel.
func (s *Set) CancelAll() {
	s.mu.Lock()
	all := make([]context.CancelFunc, 0, len(s.m))
	for _, cancel := range s.m {
		all = append(all, cancel)
	}
	s.mu.Unlock()
	for _, cancel := range all {
		cancel()
	}
}
