package pgstore_test

// Two Stores on one schema are two nodes: what SQLite, one process with one
// writer, cannot show.

import (
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rtcagent/rtcagent/internal/protocol"
	"github.com/rtcagent/rtcagent/internal/store"
	"github.com/rtcagent/rtcagent/internal/store/pgstore"
	"github.com/rtcagent/rtcagent/internal/testkit/storetest"
)

func twoNodes(t *testing.T) (a, b *pgstore.Store, c *storetest.Clock) {
	url := serverURL(t)
	schema := freshSchema(t, url)
	c = storetest.NewClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	return openStore(t, url, schema, c.Now), openStore(t, url, schema, c.Now), c
}

// hookLog records, per user, the offsets a store's commit hook saw, in call order.
type hookLog struct {
	mu   sync.Mutex
	offs map[string][]int64
}

func (h *hookLog) hook(c store.Commit) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.offs == nil {
		h.offs = map[string][]int64{}
	}
	for _, u := range c.Updates {
		h.offs[u.UserID] = append(h.offs[u.UserID], u.Offset)
	}
}

// increasing fails unless every user's offsets arrived in strictly increasing order.
func (h *hookLog) increasing(t *testing.T, name string) {
	t.Helper()
	h.mu.Lock()
	defer h.mu.Unlock()
	for user, offs := range h.offs {
		if !slices.IsSorted(offs) || len(slices.Compact(slices.Clone(offs))) != len(offs) {
			t.Fatalf("%s: hook saw %s's offsets out of order: %v", name, user, offs)
		}
	}
}

func appendOne(s store.Store, user string) (int64, error) {
	var u protocol.Update
	err := s.Write(ctx, func(tx store.Tx) error {
		var err error
		u, err = tx.UpdateAppend(user, protocol.UpdRTCUpdated, nil)
		return err
	})
	return u.Offset, err
}

func TestNodesOffsets(t *testing.T) {
	a, b, _ := twoNodes(t)
	var ha, hb hookLog
	a.SetCommitHook(ha.hook)
	b.SetCommitHook(hb.hook)
	const writers, each = 8, 20 // per node
	var mu sync.Mutex
	var got []int64
	var wg sync.WaitGroup
	for _, s := range []store.Store{a, b} {
		for range writers {
			wg.Go(func() {
				for range each {
					off, err := appendOne(s, "u")
					if err != nil {
						t.Error(err)
						return
					}
					mu.Lock()
					got = append(got, off)
					mu.Unlock()
				}
			})
		}
	}
	wg.Wait()
	const n = 2 * writers * each
	slices.Sort(got)
	for i, off := range got {
		if off != int64(i+1) {
			t.Fatalf("offsets are not 1..%d: position %d holds %d", n, i, off)
		}
	}
	ha.increasing(t, "node a")
	hb.increasing(t, "node b")
	if len(ha.offs["u"])+len(hb.offs["u"]) != n {
		t.Fatalf("hooks saw %d+%d updates, want %d", len(ha.offs["u"]), len(hb.offs["u"]), n)
	}
	var list []protocol.Update
	var pos store.StreamPos
	err := a.Read(ctx, func(tx store.Tx) error { var err error; list, pos, err = tx.UpdateList("u", 0, -1, 0); return err })
	if err != nil || len(list) != n || pos.Top != n || list[n-1].Offset != n {
		t.Fatalf("stored: %d updates, top %d, err %v", len(list), pos.Top, err)
	}
}

// race runs f(a) and f(b) as close together as a barrier allows.
func race(a, b store.Store, f func(s store.Store, i int) error) [2]error {
	var errs [2]error
	var start, wg sync.WaitGroup
	start.Add(1)
	for i, s := range []store.Store{a, b} {
		wg.Go(func() {
			start.Wait()
			errs[i] = f(s, i)
		})
	}
	start.Done()
	wg.Wait()
	return errs
}

// oneWon fails unless exactly one error is nil and the other is want.
func oneWon(t *testing.T, errs [2]error, want error) {
	t.Helper()
	if (errs[0] == nil) == (errs[1] == nil) || !(errors.Is(errs[0], want) || errors.Is(errs[1], want)) {
		t.Fatalf("want one success and one %v, got %v", want, errs)
	}
}

func TestNodesClientID(t *testing.T) {
	a, b, _ := twoNodes(t)
	for i := range 20 {
		cid := fmt.Sprintf("c%d", i)
		ids := [2]string{fmt.Sprintf("m%da", i), fmt.Sprintf("m%db", i)}
		errs := race(a, b, func(s store.Store, n int) error {
			return s.Write(ctx, func(tx store.Tx) error {
				m := &protocol.Message{ID: ids[n], SessionID: fmt.Sprintf("s%d", n), UserID: "u", Seq: int64(i + 1)}
				return tx.MessageInsert(m, cid)
			})
		})
		oneWon(t, errs, store.ErrDuplicate)
		winner, loser := ids[0], ids[1]
		if errs[0] != nil {
			winner, loser = loser, winner
		}
		err := a.Read(ctx, func(tx store.Tx) error {
			m, err := tx.MessageByClientID("u", cid)
			if err == nil && m.ID != winner {
				return fmt.Errorf("stored %s, winner %s", m.ID, winner)
			}
			if _, err := tx.MessageGet(loser); !errors.Is(err, store.ErrNotFound) {
				return fmt.Errorf("loser %s: %v", loser, err)
			}
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
}

// Both transactions read MAX(seq) before either inserts: the second insert hits
// the unique index, and Write runs it again with the new maximum.
func TestNodesSeqRaceRetried(t *testing.T) {
	a, b, _ := twoNodes(t)
	var read sync.WaitGroup
	read.Add(2)
	var runs atomic.Int32
	errs := race(a, b, func(s store.Store, n int) error {
		first := true
		return s.Write(ctx, func(tx store.Tx) error {
			runs.Add(1)
			seq, err := tx.MessageMaxSeq("s")
			if err != nil {
				return err
			}
			if first {
				first = false
				read.Done()
				read.Wait()
			}
			return tx.MessageInsert(&protocol.Message{ID: fmt.Sprintf("m%d", n), SessionID: "s", UserID: "u", Seq: seq + 1}, "")
		})
	})
	if errs[0] != nil || errs[1] != nil {
		t.Fatal(errs)
	}
	var list []protocol.Message
	_ = a.Read(ctx, func(tx store.Tx) error { list, _ = tx.MessageList("s", store.Page{}); return nil })
	if len(list) != 2 || list[1].Seq != 2 || runs.Load() != 3 {
		t.Fatalf("messages %v after %d runs", list, runs.Load())
	}
}

// Two transactions lock two users' streams in opposite orders: PostgreSQL aborts
// one (deadlock_detected) and Write runs it again; both commit.
func TestNodesDeadlockRetried(t *testing.T) {
	a, b, _ := twoNodes(t)
	var locked sync.WaitGroup
	locked.Add(2)
	users := [2][2]string{{"u1", "u2"}, {"u2", "u1"}}
	errs := race(a, b, func(s store.Store, n int) error {
		first := true
		return s.Write(ctx, func(tx store.Tx) error {
			if _, err := tx.UpdateAppend(users[n][0], protocol.UpdTurnUpdated, nil); err != nil {
				return err
			}
			if first {
				first = false
				locked.Done()
				locked.Wait()
			}
			_, err := tx.UpdateAppend(users[n][1], protocol.UpdTurnUpdated, nil)
			return err
		})
	})
	if errs[0] != nil || errs[1] != nil {
		t.Fatal(errs)
	}
	for _, u := range []string{"u1", "u2"} {
		var pos store.StreamPos
		_ = a.Read(ctx, func(tx store.Tx) error { pos, _ = tx.StreamGet(u); return nil })
		if pos.Top != 2 {
			t.Fatalf("%s top %d", u, pos.Top)
		}
	}
}

// One process, transactions spanning several users: each user's updates reach
// the hook in offset order, and no transaction waits for unrelated users.
func TestHookOrderManyUsers(t *testing.T) {
	a, _, _ := twoNodes(t)
	var h hookLog
	a.SetCommitHook(h.hook)
	users := []string{"u0", "u1", "u2", "u3", "u4"}
	var wg sync.WaitGroup
	var want atomic.Int64 // one update per user and commit
	for w := range 12 {
		wg.Go(func() {
			for j := range 15 {
				// Two users in name order, so the writers do not deadlock.
				x, y := users[(w+j)%5], users[(w+2*j+1)%5]
				if x > y {
					x, y = y, x
				}
				err := a.Write(ctx, func(tx store.Tx) error {
					for _, u := range []string{x, y} {
						if _, err := tx.UpdateAppend(u, protocol.UpdTurnUpdated, nil); err != nil {
							return err
						}
					}
					return nil
				})
				if err != nil {
					t.Error(err)
					return
				}
				want.Add(2)
				if x == y {
					want.Add(-1)
				}
			}
		})
	}
	wg.Wait()
	h.increasing(t, "hook")
	total := 0
	for _, offs := range h.offs {
		total += len(offs)
	}
	if int64(total) != want.Load() {
		t.Fatalf("hook saw %d updates", total)
	}
}
