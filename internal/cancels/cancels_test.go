package cancels_test

import (
	"context"
	"sync"
	"testing"

	"github.com/rtcagent/rtcagent/internal/cancels"
)

func TestCancelByID(t *testing.T) {
	var s cancels.Set
	s.Cancel("none") // nothing registered: nothing happens
	a, cancelA := context.WithCancel(context.Background())
	b, cancelB := context.WithCancel(context.Background())
	removeA := s.Add("a", cancelA)
	s.Add("b", cancelB)
	s.Cancel("a")
	if a.Err() == nil || b.Err() != nil {
		t.Fatalf("after Cancel(a): a %v, b %v", a.Err(), b.Err())
	}
	removeA()
	c, cancelC := context.WithCancel(context.Background())
	defer cancelC()
	removeC := s.Add("c", cancelC)
	removeC()
	s.Cancel("c") // removed: not cancelled
	if c.Err() != nil {
		t.Fatal("a removed cancel was called")
	}
	s.CancelAll()
	if b.Err() == nil {
		t.Fatal("CancelAll left b running")
	}
}

// Adds, removes and cancels from many goroutines (run with -race).
func TestConcurrentUse(t *testing.T) {
	var s cancels.Set
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			id := string(rune('a' + i))
			for range 100 {
				ctx, cancel := context.WithCancel(context.Background())
				remove := s.Add(id, cancel)
				s.Cancel(id)
				if ctx.Err() == nil {
					t.Error("not cancelled")
				}
				remove()
				s.CancelAll()
			}
		}()
	}
	wg.Wait()
}
