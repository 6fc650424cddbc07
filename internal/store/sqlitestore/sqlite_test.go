package sqlitestore_test

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/rtcagent/rtcagent/internal/protocol"
	"github.com/rtcagent/rtcagent/internal/store"
	"github.com/rtcagent/rtcagent/internal/store/sqlitestore"
	"github.com/rtcagent/rtcagent/internal/store/storetest"
)

func TestConformance(t *testing.T) {
	storetest.Run(t, func(t *testing.T, clock *storetest.Clock) store.Store {
		s, err := sqlitestore.Open(context.Background(), filepath.Join(t.TempDir(), "test.db"), sqlitestore.Options{Now: clock.Now})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		return s
	})
}

// The counts add every commit and the pages it wrote to the WAL.
func TestCountsPagesOfCommits(t *testing.T) {
	s, err := sqlitestore.Open(context.Background(), filepath.Join(t.TempDir(), "test.db"), sqlitestore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	before := sqlitestore.ReadCounts()
	for i := range 3 {
		if err := s.Write(context.Background(), func(tx store.Tx) error {
			_, err := tx.UpdateAppend("u", protocol.UpdTurnUpdated, map[string]int{"i": i})
			return err
		}); err != nil {
			t.Fatal(err)
		}
	}
	c := sqlitestore.ReadCounts().Sub(before)
	// Other tests of the package may commit meanwhile, so at least.
	if c.Commits < 3 || c.Writes < 3 || c.Pages < 3 {
		t.Fatalf("counts after 3 commits of an update each: %+v", c)
	}
}

// Retention deletes only a stream's oldest updates: an update appended while
// the clock stood earlier than its predecessor's is not cut out of the middle
// of the history (which would leave a gap above the floor).
func TestPruneKeepsHistoryWholeWhenTheClockWentBack(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	clock := storetest.NewClock(t0.Add(10 * time.Minute))
	s, err := sqlitestore.Open(context.Background(), filepath.Join(t.TempDir(), "test.db"), sqlitestore.Options{Now: clock.Now})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	appendAt := func(at time.Time) {
		clock.Advance(at.Sub(clock.Now()))
		if err := s.Write(ctx, func(tx store.Tx) error {
			_, err := tx.UpdateAppend("u", protocol.UpdTurnUpdated, nil)
			return err
		}); err != nil {
			t.Fatal(err)
		}
	}
	appendAt(t0)                       // 1
	appendAt(t0.Add(20 * time.Minute)) // 2
	appendAt(t0.Add(5 * time.Minute))  // 3: the clock went back
	appendAt(t0.Add(30 * time.Minute)) // 4
	var n int64
	if err := s.Write(ctx, func(tx store.Tx) error {
		var err error
		n, err = tx.UpdatePrune(t0.Add(15*time.Minute), 0)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	var list []protocol.Update
	var pos store.StreamPos
	if err := s.Read(ctx, func(tx store.Tx) error {
		var err error
		list, pos, err = tx.UpdateList("u", 0, 10, 0)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	// 1 is older than the retention; 2 is not, so 3 stays too.
	if n != 1 || pos.Floor != 1 || pos.Top != 4 || len(list) != 3 || list[0].Offset != 2 || list[2].Offset != 4 {
		t.Fatalf("pruned %d; floor %d top %d; kept %v", n, pos.Floor, pos.Top, list)
	}
}
