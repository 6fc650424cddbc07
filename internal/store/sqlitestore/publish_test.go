package sqlitestore

import (
	"context"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/rtcagent/rtcagent/internal/protocol"
	"github.com/rtcagent/rtcagent/internal/store"
)

// Two writes committed as one group are one commit: while the group's hook
// runs, the write that did not lead it waits for its publishing and runs no
// group of its own (an empty one when nothing else is queued).
func TestAWriteTakenIntoAGroupLeadsNoOther(t *testing.T) {
	ctx := context.Background()
	s, err := Open(ctx, filepath.Join(t.TempDir(), "t.db"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	appendOne := func() error {
		return s.Write(ctx, func(tx store.Tx) error {
			_, err := tx.UpdateAppend("u", protocol.UpdTurnUpdated, nil)
			return err
		})
	}
	if err := appendOne(); err != nil { // takes the writer
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
		go func() { errs <- appendOne() }()
		go func() { errs <- appendOne() }()
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
