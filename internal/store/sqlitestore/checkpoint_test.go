package sqlitestore_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rtcagent/rtcagent/internal/protocol"
	"github.com/rtcagent/rtcagent/internal/store"
	"github.com/rtcagent/rtcagent/internal/store/sqlitestore"
)

// Checkpoints run beside the writer, so the WAL is copied into the database and
// then reused from its start: with readers busy all along, a second round of
// writes of the same size does not grow the WAL file much beyond the first.
func TestWALReusedAfterBackgroundCheckpoint(t *testing.T) {
	path := filepath.Join(t.TempDir(), "wal.db")
	s, err := sqlitestore.Open(context.Background(), path, sqlitestore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ctx.Err() == nil {
				_ = s.Read(ctx, func(tx store.Tx) error { _, _, err := tx.UpdateList("u", 0, 10); return err })
			}
		}()
	}
	data := strings.Repeat("x", 2000)
	round := func() int64 {
		for range 2000 {
			if err := s.Write(context.Background(), func(tx store.Tx) error {
				_, err := tx.UpdateAppend("u", protocol.UpdTurnUpdated, data)
				return err
			}); err != nil {
				t.Fatal(err)
			}
		}
		st, err := os.Stat(path + "-wal")
		if err != nil {
			t.Fatal(err)
		}
		return st.Size()
	}
	first := round()
	time.Sleep(1500 * time.Millisecond) // three checkpoint periods
	second := round()
	cancel()
	wg.Wait()
	if second > first*3/2 {
		t.Fatalf("WAL grew from %d to %d bytes: it was not reused after a checkpoint", first, second)
	}
}

// Under writes that never pause, the WAL still starts over: the checkpointer
// makes it restart once it is longer than half of WALSize, and each restart cuts
// the file back to WALSize. Without restarts the file would only grow.
func TestWALStartsOverUnderSteadyWrites(t *testing.T) {
	const walSize = 1 << 20
	path := filepath.Join(t.TempDir(), "wal.db")
	s, err := sqlitestore.Open(context.Background(), path, sqlitestore.Options{WALSize: walSize})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var wg sync.WaitGroup
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ctx.Err() == nil {
				_ = s.Read(ctx, func(tx store.Tx) error { _, _, err := tx.UpdateList("u0", 0, 10); return err })
			}
		}()
	}
	data := strings.Repeat("x", 2000)
	for i := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			user := fmt.Sprintf("u%d", i)
			for ctx.Err() == nil {
				err := s.Write(ctx, func(tx store.Tx) error {
					_, err := tx.UpdateAppend(user, protocol.UpdTurnUpdated, data)
					return err
				})
				if err != nil && ctx.Err() == nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	// The file shrinks only when the WAL starts over. Wait for three restarts,
	// bounded by a generous time for a loaded machine.
	var last, largest int64
	restarts := 0
	for deadline := time.Now().Add(30 * time.Second); restarts < 3 && time.Now().Before(deadline); {
		time.Sleep(10 * time.Millisecond)
		st, err := os.Stat(path + "-wal")
		if err != nil {
			continue
		}
		if st.Size() < last && st.Size() <= walSize {
			restarts++
		}
		last, largest = st.Size(), max(largest, st.Size())
	}
	cancel()
	wg.Wait()
	if restarts < 3 {
		t.Fatalf("the WAL file started over %d times in 30 s of writes (largest %d bytes)", restarts, largest)
	}
}
