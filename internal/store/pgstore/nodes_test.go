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
)

// clock is the nodes' shared, settable time.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) Advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

func twoNodes(t *testing.T) (a, b *pgstore.Store, c *clock) {
	url := serverURL(t)
	schema := freshSchema(t, url)
	c = &clock{t: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
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
	err := a.Read(ctx, func(tx store.Tx) error { var err error; list, pos, err = tx.UpdateList("u", 0, -1); return err })
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

func TestNodesLeaseOneWinner(t *testing.T) {
	a, b, clock := twoNodes(t)
	holders := []string{"A", "B"}
	tokens := map[string]int64{}
	for round := range 2 { // free leases, then expired ones
		for i := range 20 {
			id := fmt.Sprintf("s%d", i)
			var won [2]store.Lease
			errs := race(a, b, func(s store.Store, n int) error {
				return s.Write(ctx, func(tx store.Tx) error {
					var err error
					won[n], err = tx.LeaseAcquire(id, holders[n], 10*time.Second)
					return err
				})
			})
			oneWon(t, errs, store.ErrConflict)
			l := won[0]
			if errs[0] != nil {
				l = won[1]
			}
			if l.Token <= tokens[id] {
				t.Fatalf("round %d %s: token %d after %d", round, id, l.Token, tokens[id])
			}
			tokens[id] = l.Token
		}
		clock.Advance(11 * time.Second)
	}
}

// A stale holder whose transaction started before another node took the lease
// fails its LeaseCheck, and nothing of its transaction commits.
func TestNodesStaleHolderFailsAfterAcquire(t *testing.T) {
	a, b, clock := twoNodes(t)
	old := acquire(t, a, "s", "A")
	appended, taken := make(chan struct{}), make(chan struct{})
	done := make(chan error)
	go func() {
		done <- a.Write(ctx, func(tx store.Tx) error {
			if _, err := tx.UpdateAppend("u", protocol.UpdTurnUpdated, nil); err != nil {
				return err
			}
			close(appended)
			<-taken
			return tx.LeaseCheck(old) // tx.Now() is from before the expiry
		})
	}()
	<-appended
	clock.Advance(11 * time.Second)
	if l := acquire(t, b, "s", "B"); l.Token <= old.Token {
		t.Fatalf("token %d after %d", l.Token, old.Token)
	}
	close(taken)
	if err := <-done; !errors.Is(err, store.ErrLeaseLost) {
		t.Fatalf("stale holder's check: %v", err)
	}
	var pos store.StreamPos
	_ = a.Read(ctx, func(tx store.Tx) error { pos, _ = tx.StreamGet("u"); return nil })
	if pos.Top != 0 {
		t.Fatalf("the fenced transaction committed: top %d", pos.Top)
	}
}

// A holder that passed LeaseCheck keeps the lease until its transaction ends: an
// acquirer on another node waits for it, even though the lease expired meanwhile.
func TestNodesAcquireWaitsForCheckedHolder(t *testing.T) {
	a, b, clock := twoNodes(t)
	old := acquire(t, a, "s", "A")
	checked, release := make(chan struct{}), make(chan struct{})
	aDone := make(chan error)
	go func() {
		aDone <- a.Write(ctx, func(tx store.Tx) error {
			if err := tx.LeaseCheck(old); err != nil {
				return err
			}
			close(checked)
			<-release
			return tx.InboxInsert(&store.InboxItem{SessionID: "s", Kind: "k", TurnID: "t"})
		})
	}()
	<-checked
	clock.Advance(11 * time.Second)
	var newer store.Lease
	bDone := make(chan error, 1)
	go func() {
		bDone <- b.Write(ctx, func(tx store.Tx) error {
			var err error
			newer, err = tx.LeaseAcquire("s", "B", 10*time.Second)
			return err
		})
	}()
	select {
	case err := <-bDone:
		t.Fatalf("acquired while the holder's checked transaction was open: %v", err)
	case <-time.After(300 * time.Millisecond):
	}
	close(release)
	if err := <-aDone; err != nil {
		t.Fatalf("holder's write: %v", err)
	}
	if err := <-bDone; err != nil || newer.Token <= old.Token {
		t.Fatalf("acquire after the holder committed: token %d after %d, %v", newer.Token, old.Token, err)
	}
	err := a.Write(ctx, func(tx store.Tx) error { return tx.LeaseCheck(old) })
	if !errors.Is(err, store.ErrLeaseLost) {
		t.Fatalf("stale holder passed the fence: %v", err)
	}
}

func acquire(t *testing.T, s store.Store, id, holder string) store.Lease {
	t.Helper()
	var l store.Lease
	err := s.Write(ctx, func(tx store.Tx) error {
		var err error
		l, err = tx.LeaseAcquire(id, holder, 10*time.Second)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return l
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

// The runner's claim protocol from two nodes with two claimers each: list with
// InboxSessions, take with LeaseAcquire. Every session is claimed exactly once.
func TestNodesClaim(t *testing.T) {
	a, b, _ := twoNodes(t)
	const sessions = 40
	err := a.Write(ctx, func(tx store.Tx) error {
		for i := range sessions {
			if err := tx.InboxInsert(&store.InboxItem{SessionID: fmt.Sprintf("s%02d", i), Kind: "k", TurnID: "t"}); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	claims := map[string][]string{}
	var wg sync.WaitGroup
	for n, s := range []store.Store{a, b, a, b} {
		holder := fmt.Sprintf("h%d", n)
		wg.Go(func() {
			for {
				var ids []string
				if err := s.Read(ctx, func(tx store.Tx) error { var err error; ids, err = tx.InboxSessions(5); return err }); err != nil {
					t.Error(err)
					return
				}
				if len(ids) == 0 {
					return
				}
				for _, id := range ids {
					err := s.Write(ctx, func(tx store.Tx) error { _, err := tx.LeaseAcquire(id, holder, time.Minute); return err })
					switch {
					case err == nil:
						mu.Lock()
						claims[id] = append(claims[id], holder)
						mu.Unlock()
					case !errors.Is(err, store.ErrConflict):
						t.Error(err)
						return
					}
				}
			}
		})
	}
	wg.Wait()
	if len(claims) != sessions {
		t.Fatalf("%d sessions claimed, want %d", len(claims), sessions)
	}
	for id, hs := range claims {
		if len(hs) != 1 {
			t.Fatalf("%s claimed by %v", id, hs)
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
			}
		})
	}
	wg.Wait()
	h.increasing(t, "hook")
	total := 0
	for _, offs := range h.offs {
		total += len(offs)
	}
	if total != 12*15*2 {
		t.Fatalf("hook saw %d updates", total)
	}
}
