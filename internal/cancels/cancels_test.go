package cancels_test

import (
	"context"
	"strconv"
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

// Work registered after its id was stopped is cancelled as it registers; a
// plain Cancel keeps nothing. Stop keeps the latest 1,024 ids.
func TestStopBeforeAdd(t *testing.T) {
	var s cancels.Set
	s.Cancel("c")
	c, cancelC := context.WithCancel(context.Background())
	defer cancelC()
	s.Add("c", cancelC)
	if c.Err() != nil {
		t.Fatal("a Cancel before the Add cancelled it")
	}
	s.Stop("a")
	a, cancelA := context.WithCancel(context.Background())
	s.Add("a", cancelA)
	if a.Err() == nil {
		t.Fatal("an Add after Stop was not cancelled")
	}
	a2, cancelA2 := context.WithCancel(context.Background())
	s.Add("a", cancelA2) // still stopped: every later Add
	if a2.Err() == nil {
		t.Fatal("a second Add after Stop was not cancelled")
	}
	for i := range 1024 {
		s.Stop(strconv.Itoa(i))
	}
	b, cancelB := context.WithCancel(context.Background())
	defer cancelB()
	s.Add("a", cancelB)
	if b.Err() != nil {
		t.Fatal("an id stopped 1,025 stops ago is still kept")
	}
	last, cancelLast := context.WithCancel(context.Background())
	s.Add("1023", cancelLast)
	if last.Err() == nil {
		t.Fatal("the latest stop was forgotten")
	}
}
