package storetest

import (
	"testing"
	"time"

	"github.com/rtcagent/rtcagent/internal/protocol"
	"github.com/rtcagent/rtcagent/internal/store"
)

// Retention deletes only a stream's oldest updates: an update appended while
// the clock stood earlier than its predecessor's is not cut out of the middle
// of the history (which would leave a gap above the floor).
func testPruneKeepsHistoryWhole(t *testing.T, s store.Store, clock *Clock) {
	t0 := clock.Now()
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
