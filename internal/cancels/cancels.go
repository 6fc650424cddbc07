package cancels

import (
	"context"
	"sync"
)

// Set holds a cancel function per id. The zero value is empty and ready.
type Set struct {
	mu sync.Mutex
	m  map[string]context.CancelFunc
}

// Add registers cancel under id, replacing one registered before, and returns
// the function that removes it: defer it where the work ends.
func (s *Set) Add(id string, cancel context.CancelFunc) (remove func()) {
	s.mu.Lock()
	if s.m == nil {
		s.m = map[string]context.CancelFunc{}
	}
	s.m[id] = cancel
	s.mu.Unlock()
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
