package pgstore_test

// Leases and claims from two nodes.

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rtcagent/rtcagent/internal/protocol"
	"github.com/rtcagent/rtcagent/internal/store"
	"github.com/rtcagent/rtcagent/internal/store/pgstore"
)

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
	takenOnce := sync.OnceFunc(func() { close(taken) })
	defer takenOnce() // on failure too: an open transaction would hang Close
	done := make(chan error, 1)
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
	takenOnce()
	if err := <-done; !errors.Is(err, store.ErrLeaseLost) {
		t.Fatalf("stale holder's check: %v", err)
	}
	var pos store.StreamPos
	_ = a.Read(ctx, func(tx store.Tx) error { pos, _ = tx.StreamGet("u"); return nil })
	if pos.Top != 0 {
		t.Fatalf("the fenced transaction committed: top %d", pos.Top)
	}
}

// A holder that passed LeaseCheck keeps the lease until its transaction ends:
// for an acquirer on another node the lease is busy, even though it expired
// meanwhile; once the holder committed, the acquirer takes it and the stale
// holder's next check fails.
func TestNodesAcquireBusyWhileHolderChecked(t *testing.T) {
	a, b, clock := twoNodes(t)
	old := acquire(t, a, "s", "A")
	checked, release := make(chan struct{}), make(chan struct{})
	releaseOnce := sync.OnceFunc(func() { close(release) })
	defer releaseOnce() // on failure too: an open transaction would hang Close
	aDone := make(chan error, 1)
	go func() {
		aDone <- a.Write(ctx, func(tx store.Tx) error {
			if err := tx.LeaseCheck(old); err != nil {
				return err
			}
			// The check goes to the server with the next statement.
			if _, err := tx.StreamGet("u"); err != nil {
				return err
			}
			close(checked)
			<-release
			return tx.InboxInsert(&store.InboxItem{SessionID: "s", Kind: "k", TurnID: "t"})
		})
	}()
	<-checked
	clock.Advance(11 * time.Second)
	take := func() (store.Lease, error) {
		var l store.Lease
		err := b.Write(ctx, func(tx store.Tx) error {
			var err error
			l, err = tx.LeaseAcquire("s", "B", 10*time.Second)
			return err
		})
		return l, err
	}
	if _, err := take(); !errors.Is(err, store.ErrConflict) {
		t.Fatalf("acquire while the holder's checked transaction was open: %v, want a conflict", err)
	}
	releaseOnce()
	if err := <-aDone; err != nil {
		t.Fatalf("holder's write: %v", err)
	}
	if newer, err := take(); err != nil || newer.Token <= old.Token {
		t.Fatalf("acquire after the holder committed: token %d after %d, %v", newer.Token, old.Token, err)
	}
	err := a.Write(ctx, func(tx store.Tx) error { return tx.LeaseCheck(old) })
	if !errors.Is(err, store.ErrLeaseLost) {
		t.Fatalf("stale holder passed the fence: %v", err)
	}
}

// The lock order, lease row before user stream row, holds for the two paths
// that take both: a worker's write (LeaseCheck, then the stream) and an API
// write that locks the stream and then adopts the work it queued
// (LeaseAcquire). Run against each other they never deadlock: each
// transaction runs once (a deadlock makes PostgreSQL abort one, which Write
// runs again, after deadlock_timeout).
func TestLockOrderAdoptAndWorker(t *testing.T) {
	a, _, _ := twoNodes(t)
	held := acquire(t, a, "s", "worker")
	if err := a.Write(ctx, func(tx store.Tx) error { _, err := tx.UpdateAppend("u", protocol.UpdTurnUpdated, nil); return err }); err != nil {
		t.Fatal(err)
	}
	checked, locked := make(chan struct{}), make(chan struct{})
	checkedOnce, lockedOnce := sync.OnceFunc(func() { close(checked) }), sync.OnceFunc(func() { close(locked) })
	defer checkedOnce()
	defer lockedOnce()
	var runs [2]int
	var adopted error
	errs := make(chan error, 2)
	go func() {
		errs <- a.Write(ctx, func(tx store.Tx) error { // the worker
			runs[0]++
			if err := tx.LeaseCheck(held); err != nil {
				return err
			}
			checkedOnce()
			<-locked
			_, err := tx.UpdateAppend("u", protocol.UpdTurnUpdated, nil)
			return err
		})
	}()
	go func() {
		<-checked
		errs <- a.Write(ctx, func(tx store.Tx) error { // the API write
			runs[1]++
			if _, err := tx.UpdateAppend("u", protocol.UpdTurnUpdated, nil); err != nil {
				return err
			}
			lockedOnce()
			_, adopted = tx.LeaseAcquire("s", "api-node", 10*time.Second)
			if errors.Is(adopted, store.ErrConflict) {
				return nil // held: its holder drains the work
			}
			return adopted
		})
	}()
	for range 2 {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	if runs != [2]int{1, 1} {
		t.Fatalf("transactions ran %v times: a deadlock aborted one", runs)
	}
	if !errors.Is(adopted, store.ErrConflict) {
		t.Fatalf("adopting a lease whose holder is writing: %v, want a conflict", adopted)
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

// A claim that takes a session off the ready queue and then locks its user's
// stream, against an API write that holds the stream and queues work for that
// session: the queue's rows come last in both (written with the commit), so
// neither waits for the other in a cycle and no deadlock aborts one.
func TestLockOrderClaimAndQueuedWork(t *testing.T) {
	a, _, _ := twoNodes(t)
	if err := a.Write(ctx, func(tx store.Tx) error { // work on the queue, the stream row there
		if _, err := tx.UpdateAppend("u", protocol.UpdTurnUpdated, nil); err != nil {
			return err
		}
		return tx.InboxInsert(&store.InboxItem{SessionID: "s", Kind: "k", TurnID: "t"})
	}); err != nil {
		t.Fatal(err)
	}
	claimed, locked := make(chan struct{}), make(chan struct{})
	claimedOnce, lockedOnce := sync.OnceFunc(func() { close(claimed) }), sync.OnceFunc(func() { close(locked) })
	defer claimedOnce()
	defer lockedOnce()
	var runs [2]int
	errs := make(chan error, 2)
	go func() {
		errs <- a.Write(ctx, func(tx store.Tx) error { // the claim
			runs[0]++
			if _, err := tx.LeaseAcquire("s", "A", 10*time.Second); err != nil {
				return err
			}
			claimedOnce()
			<-locked
			_, err := tx.UpdateAppend("u", protocol.UpdTurnUpdated, nil) // the take
			return err
		})
	}()
	go func() {
		<-claimed
		errs <- a.Write(ctx, func(tx store.Tx) error { // the API write
			runs[1]++
			if _, err := tx.UpdateAppend("u", protocol.UpdTurnUpdated, nil); err != nil {
				return err
			}
			lockedOnce()
			return tx.InboxInsert(&store.InboxItem{SessionID: "s", Kind: "k", TurnID: "t"})
		})
	}()
	for range 2 {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	if runs != [2]int{1, 1} {
		t.Fatalf("transactions ran %v times: a deadlock aborted one", runs)
	}
}

// A lease check queued right before a stream lock goes in the lock's
// statement, and it still takes the lease row first: while an acquirer holds
// the lease row, the holder's transaction waits without holding the user's
// stream (a writer of the user passes), and once the acquirer took the lease
// it fails with ErrLeaseLost, having written nothing.
func TestLeaseCheckInTheStreamLockTakesTheLeaseFirst(t *testing.T) {
	a, _, _ := twoNodes(t)
	sess := &protocol.Session{ID: "s", UserID: "u", Status: protocol.SessionOpen}
	if err := a.Write(ctx, func(tx store.Tx) error {
		_, err := tx.UpdateAppend("u", protocol.UpdSessionCreated, sess)
		return errors.Join(err, tx.SessionInsert(sess))
	}); err != nil {
		t.Fatal(err)
	}
	held := acquire(t, a, "s", "A")
	pool := pgstore.Pool(a)
	acq, err := pool.Begin(ctx) // another node's claim, between its lock and its update
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = acq.Rollback(ctx) }()
	if _, err := acq.Exec(ctx, `SELECT 1 FROM leases WHERE session_id = 's' FOR UPDATE`); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var sent []string
	stop := pgstore.WatchStatements(func(sql string, _ []any) { mu.Lock(); sent = append(sent, sql); mu.Unlock() })
	done := make(chan error, 1)
	go func() {
		done <- a.Write(ctx, func(tx store.Tx) error {
			if err := tx.LeaseCheck(held); err != nil {
				return err
			}
			if _, err := tx.SessionGet("s"); err != nil {
				return err
			}
			_, err := tx.UpdateAppend("u", protocol.UpdSessionUpdated, sess)
			return err
		})
	}()
	// The holder's statement waits for the lease row.
	for i := 0; ; i++ {
		var waiting bool
		if err := pool.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM pg_stat_activity
			WHERE wait_event_type = 'Lock' AND query LIKE '%lease_gate%')`).Scan(&waiting); err != nil {
			t.Fatal(err)
		}
		if waiting {
			break
		}
		if i == 200 {
			t.Fatal("the holder's transaction never waited for the lease row")
		}
		time.Sleep(10 * time.Millisecond)
	}
	// It does not hold the user's stream meanwhile.
	w, err := pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Exec(ctx, `SELECT 1 FROM user_streams WHERE user_id = 'u' FOR UPDATE NOWAIT`); err != nil {
		t.Fatalf("the user's stream is locked while the lease check waits: %v", err)
	}
	_ = w.Rollback(ctx)
	if _, err := acq.Exec(ctx, `UPDATE leases SET holder = 'B', token = token + 1 WHERE session_id = 's'`); err != nil {
		t.Fatal(err)
	}
	if err := acq.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	if err := <-done; !errors.Is(err, store.ErrLeaseLost) {
		t.Fatalf("the stale holder's write: %v, want the lease lost", err)
	}
	stop()
	mu.Lock()
	defer mu.Unlock()
	for _, q := range sent {
		if strings.HasPrefix(strings.TrimSpace(q), "WITH lease AS") {
			t.Errorf("the lease check went as a statement of its own: %s", q)
		}
	}
	var pos store.StreamPos
	_ = a.Read(ctx, func(tx store.Tx) error { pos, _ = tx.StreamGet("u"); return nil })
	if pos.Top != 1 {
		t.Fatalf("the fenced transaction committed: top %d", pos.Top)
	}
}
