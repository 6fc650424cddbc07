package sqlitestore

import (
	"context"
	"errors"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/rtcagent/rtcagent/internal/protocol"
	"github.com/rtcagent/rtcagent/internal/store"
)

// openTemp opens a store on a new file of the test's, closed when it ends.
func openTemp(t *testing.T) *Store {
	t.Helper()
	s, err := Open(context.Background(), filepath.Join(t.TempDir(), "t.db"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// appendOne writes one update of user u.
func appendOne(s *Store) error {
	return s.Write(context.Background(), func(tx store.Tx) error {
		_, err := tx.UpdateAppend("u", protocol.UpdTurnUpdated, nil)
		return err
	})
}

// Two writes committed as one group are one commit: while the group's hook
// runs, the write that did not lead it waits for its publishing and runs no
// group of its own (an empty one when nothing else is queued).
func TestAWriteTakenIntoAGroupLeadsNoOther(t *testing.T) {
	s := openTemp(t)
	if err := appendOne(s); err != nil { // takes the writer
		t.Fatal(err)
	}
	queued := func() int {
		s.group.mu.Lock()
		defer s.group.mu.Unlock()
		return len(s.group.queue)
	}
	inHook, release := make(chan struct{}), make(chan struct{})
	var once sync.Once
	s.SetCommitHook(func(store.Commit) { once.Do(func() { close(inHook); <-release }) })
	before := s.Counts()
	errs := make(chan error, 2)
	s.group.hold(func() { // both queue before either leads
		go func() { errs <- appendOne(s) }()
		go func() { errs <- appendOne(s) }()
		for queued() < 2 {
			time.Sleep(time.Millisecond)
		}
	})
	<-inHook
	time.Sleep(200 * time.Millisecond)
	got := s.Counts().Sub(before)
	close(release)
	for range 2 {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	if got.Commits != 1 || got.Writes != 2 {
		t.Fatalf("one group of two writes made %d commits of %d writes", got.Commits, got.Writes)
	}
}

// A group's commit hook runs after the group gave the writer back: the next
// group runs and commits meanwhile, and its own hook waits for the first's,
// so updates reach the hook in offset order; each Write returns once its
// hook ran.
func TestNextGroupCommitsWhileAHookRuns(t *testing.T) {
	ctx := context.Background()
	s := openTemp(t)
	inHook, release := make(chan struct{}), make(chan struct{})
	var mu sync.Mutex
	var offsets []int64
	s.SetCommitHook(func(c store.Commit) {
		mu.Lock()
		for _, u := range c.Updates {
			offsets = append(offsets, u.Offset)
		}
		first := len(offsets) == 1
		mu.Unlock()
		if first {
			close(inHook)
			<-release
		}
	})
	first, second := make(chan error, 1), make(chan error, 1)
	go func() { first <- appendOne(s) }()
	<-inHook
	go func() { second <- appendOne(s) }()
	deadline := time.Now().Add(10 * time.Second)
	for top := int64(0); top < 2; {
		if time.Now().After(deadline) {
			t.Fatal("the second write did not commit while the first's hook ran")
		}
		if err := s.Read(ctx, func(tx store.Tx) error {
			p, err := tx.StreamGet("u")
			top = p.Top
			return err
		}); err != nil {
			t.Fatal(err)
		}
		time.Sleep(5 * time.Millisecond)
	}
	select {
	case err := <-second:
		t.Fatalf("the second write returned (%v) before its commit was published", err)
	case <-time.After(50 * time.Millisecond):
	}
	close(release)
	if err := errors.Join(<-first, <-second); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(offsets) != 2 || offsets[0] != 1 || offsets[1] != 2 {
		t.Fatalf("the hook saw offsets %v, want [1 2]", offsets)
	}
}
