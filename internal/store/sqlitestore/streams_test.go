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
	"github.com/rtcagent/rtcagent/internal/testkit/storetest"
)

// A write starts from the stream positions the writer committed, without
// reading the stream: not after a prune changed floors, and never from a
// write that rolled back. Offsets stay contiguous through all of it, alone and
// in groups.
func TestWriterKnowsTheStreamsItCommitted(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	clock := storetest.NewClock(t0)
	s, err := sqlitestore.Open(context.Background(), filepath.Join(t.TempDir(), "test.db"), sqlitestore.Options{Now: clock.Now})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	var mu sync.Mutex
	var got []int64
	s.SetCommitHook(func(c store.Commit) {
		mu.Lock()
		defer mu.Unlock()
		for _, u := range c.Updates {
			got = append(got, u.Offset)
		}
	})
	appendOne := func(fail bool) error {
		return s.Write(ctx, func(tx store.Tx) error {
			if _, err := tx.UpdateAppend("u", protocol.UpdTurnUpdated, nil); err != nil {
				return err
			}
			if fail {
				return errors.New("rolled back")
			}
			return nil
		})
	}
	streamReads := func(fn func()) int64 {
		before := store.ReadTableCounts()["select user_streams"]
		fn()
		return store.ReadTableCounts()["select user_streams"] - before
	}
	if err := appendOne(false); err != nil {
		t.Fatal(err)
	}
	if n := streamReads(func() { _ = appendOne(false) }); n != 0 {
		t.Errorf("a write of a stream the writer committed read it %d times", n)
	}
	_ = appendOne(true)
	// Concurrent writes share groups; every other one rolls back.
	var wg sync.WaitGroup
	for i := range 20 {
		wg.Add(1)
		go func() { defer wg.Done(); _ = appendOne(i%2 == 1) }()
	}
	wg.Wait()
	clock.Advance(time.Hour)
	if err := s.Write(ctx, func(tx store.Tx) error { _, err := tx.UpdatePrune(clock.Now(), 2); return err }); err != nil {
		t.Fatal(err)
	}
	if n := streamReads(func() { _ = appendOne(false) }); n != 1 {
		t.Errorf("the write after a prune read the stream %d times, want 1", n)
	}
	mu.Lock()
	defer mu.Unlock()
	for i, off := range got {
		if off != int64(i+1) {
			t.Fatalf("offsets %v: not contiguous at %d", got, i)
		}
	}
	if len(got) != 13 {
		t.Fatalf("%d updates committed, want 13: %v", len(got), got)
	}
	var pos store.StreamPos
	if err := s.Read(ctx, func(tx store.Tx) error { var err error; pos, err = tx.StreamGet("u"); return err }); err != nil {
		t.Fatal(err)
	}
	if pos.Top != 13 || pos.Floor != 10 {
		t.Fatalf("stream after prune and appends: %+v", pos)
	}
}
