package sqlitestore_test

import (
	"context"
	"encoding/binary"
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
	path, s := openWAL(t, sqlitestore.Options{})
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	readConstantly(ctx, s, &wg, "u")
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
	waitCopied(t, path)
	second := round()
	cancel()
	wg.Wait()
	if second > first*3/2 {
		t.Fatalf("WAL grew from %d to %d bytes: it was not reused after a checkpoint", first, second)
	}
}

// waitCopied waits until the background checkpointer has copied every frame of
// the WAL into the database file, as the WAL-index in the -shm file says: its
// header's mxFrame (offset 16) and the checkpoint's nBackfill (offset 96), in
// the machine's byte order (SQLite's "WAL-index format"). A loaded machine
// only makes it wait longer.
func waitCopied(t *testing.T, path string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		b, err := os.ReadFile(path + "-shm")
		if err != nil {
			t.Fatal(err)
		}
		var frames, copied uint32
		if len(b) >= 100 {
			frames, copied = binary.NativeEndian.Uint32(b[16:]), binary.NativeEndian.Uint32(b[96:])
			if frames > 0 && copied == frames {
				return
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("after 30 s the checkpointer had copied %d of the WAL's %d frames", copied, frames)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// Under writes that never pause, the WAL still starts over: the checkpointer
// makes it restart once it is longer than half of WALSize, and each restart cuts
// the file back to WALSize. Without restarts the file would only grow.
func TestWALStartsOverUnderSteadyWrites(t *testing.T) {
	const walSize = 1 << 20
	path, s := openWAL(t, sqlitestore.Options{WALSize: walSize})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var wg sync.WaitGroup
	readConstantly(ctx, s, &wg, "u0")
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

// openWAL opens a store in a new directory and returns its file's path.
func openWAL(t *testing.T, opt sqlitestore.Options) (string, *sqlitestore.Store) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "wal.db")
	s, err := sqlitestore.Open(context.Background(), path, opt)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return path, s
}

// readConstantly keeps two readers of the user's updates busy until ctx ends, so
// some reader always holds a snapshot, as under load.
func readConstantly(ctx context.Context, s *sqlitestore.Store, wg *sync.WaitGroup, user string) {
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ctx.Err() == nil {
				_ = s.Read(ctx, func(tx store.Tx) error { _, _, err := tx.UpdateList(user, 0, 10, 0); return err })
			}
		}()
	}
}
