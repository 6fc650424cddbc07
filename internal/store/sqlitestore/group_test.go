package sqlitestore_test

import (
	"context"
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
