package sqlitestore_test

import (
	"context"
	"errors"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/rtcagent/rtcagent/internal/protocol"
	"github.com/rtcagent/rtcagent/internal/store"
	"github.com/rtcagent/rtcagent/internal/store/sqlitestore"
)

// More concurrent writers than fit in one group: every Write returns only after
// its own fn ran and committed.
func TestManyConcurrentWrites(t *testing.T) {
	s, err := sqlitestore.Open(context.Background(), filepath.Join(t.TempDir(), "many.db"), sqlitestore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	const writers = 300
	// The first write holds the writer while the others queue up behind it.
	release := make(chan struct{})
	held := make(chan struct{})
	go func() {
		_ = s.Write(context.Background(), func(tx store.Tx) error {
			close(held)
			<-release
			return nil
		})
	}()
	<-held
	var wg sync.WaitGroup
	for range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ran := false
			err := s.Write(context.Background(), func(tx store.Tx) error {
				ran = true
				_, err := tx.UpdateAppend("u", protocol.UpdTurnUpdated, nil)
				return err
			})
			if err != nil || !ran {
				t.Errorf("Write returned %v; its fn ran: %v", err, ran)
			}
		}()
	}
	time.Sleep(200 * time.Millisecond) // let the writers queue
	close(release)
	wg.Wait()
	var top int64
	if err := s.Read(context.Background(), func(tx store.Tx) error {
		p, err := tx.StreamGet("u")
		top = p.Top
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if top != writers {
		t.Fatalf("top %d, want %d", top, writers)
	}
}

// A group's commit hook runs after the group gave the writer back: the next
// group runs and commits meanwhile, and its own hook waits for the first's,
// so updates reach the hook in offset order; each Write returns once its
// hook ran.
func TestNextGroupCommitsWhileAHookRuns(t *testing.T) {
	ctx := context.Background()
	s, err := sqlitestore.Open(ctx, filepath.Join(t.TempDir(), "hook.db"), sqlitestore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
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
	appendOne := func() error {
		return s.Write(ctx, func(tx store.Tx) error {
			_, err := tx.UpdateAppend("u", protocol.UpdTurnUpdated, nil)
			return err
		})
	}
	first, second := make(chan error, 1), make(chan error, 1)
	go func() { first <- appendOne() }()
	<-inHook
	go func() { second <- appendOne() }()
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
