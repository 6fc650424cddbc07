package sqlitestore_test

import (
	"context"
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
