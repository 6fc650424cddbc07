package sqlitestore_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/rtcagent/rtcagent/internal/protocol"
	"github.com/rtcagent/rtcagent/internal/store"
	"github.com/rtcagent/rtcagent/internal/store/sqlitestore"
	"github.com/rtcagent/rtcagent/internal/testkit/storetest"
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
