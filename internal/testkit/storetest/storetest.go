package storetest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rtcagent/rtcagent/internal/protocol"
	"github.com/rtcagent/rtcagent/internal/store"
)

// Clock is a settable clock shared by a test and its store.
type Clock struct {
	mu sync.Mutex
	t  time.Time
}

// NewClock returns a clock set to t.
func NewClock(t time.Time) *Clock { return &Clock{t: t} }

// Now returns the clock's time.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

// Advance moves the clock forward.
func (c *Clock) Advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// Factory opens a fresh, empty store using clock.Now as its time source.
type Factory func(t *testing.T, clock *Clock) store.Store

// Run runs the suite.
func Run(t *testing.T, open Factory) {
	tests := map[string]func(*testing.T, store.Store, *Clock){
		"OffsetsContiguous":         testOffsets,
		"OneUpdatePerCommit":        testOneUpdatePerCommit,
		"ReadOncePerWrite":          testReadOncePerWrite,
		"ConcurrentOffsets":         testConcurrentOffsets,
		"RollbackLeavesNothing":     testRollback,
		"ConcurrentRollback":        testConcurrentRollback,
		"CompareAndSet":             testCAS,
		"FailedCheckCommitsNothing": testFailedCheckCommitsNothing,
		"PrefetchAnswers":           testPrefetchAnswers,
		"MessageClientID":           testClientID,
		"MessageLastByRole":         testMessageLastByRole,
		"MessagesStreaming":         testMessagesStreaming,
		"Lease":                     testLease,
		"NodeLiveness":              testNodeLiveness,
		"OtherNodeAlive":            testOtherNodeAlive,
		"Inbox":                     testInbox,
		"InboxFinish":               testInboxFinish,
		"ClaimCandidates":           testClaimCandidates,
		"InboxNextAfterInsert":      testInboxNextAfterInsert,
		"Checkpoint":                testCheckpoint,
		"HistoryResetAndPrune":      testHistory,
		"PruneKeepsHistoryWhole":    testPruneKeepsHistoryWhole,
		"RTCQueries":                testRTCQueries,
		"SessionList":               testSessionList,
		"ConcurrentSessionChanges":  testConcurrentSessionChanges,
		"ApprovalsAndDecisions":     testApprovalsAndDecisions,
		"Audit":                     testAudit,
		"HistoryPageBytes":          testPageBytes,
	}
	for name, fn := range tests {
		t.Run(name, func(t *testing.T) {
			clock := NewClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
			s := open(t, clock)
			fn(t, s, clock)
		})
	}
}

var ctx = context.Background()

func write(t *testing.T, s store.Store, fn func(tx store.Tx) error) {
	t.Helper()
	if err := s.Write(ctx, fn); err != nil {
		t.Fatal(err)
	}
}

func must[T any](v T, err error) func(t *testing.T) T {
	return func(t *testing.T) T {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
}

type hookRecorder struct {
	mu      sync.Mutex
	commits []store.Commit
}

func (h *hookRecorder) hook(c store.Commit) {
	h.mu.Lock()
	h.commits = append(h.commits, c)
	h.mu.Unlock()
}

func (h *hookRecorder) offsets(user string) []int64 {
	h.mu.Lock()
	defer h.mu.Unlock()
	var out []int64
	for _, c := range h.commits {
		for _, u := range c.Updates {
			if u.UserID == user {
				out = append(out, u.Offset)
			}
		}
	}
	return out
}

func testOffsets(t *testing.T, s store.Store, _ *Clock) {
	var h hookRecorder
	s.SetCommitHook(h.hook)
	// A user without updates has a stable epoch that the first update keeps: a
	// client that subscribed before it must not see a timeline change.
	var e1, e2 store.StreamPos
	_ = s.Read(ctx, func(tx store.Tx) error { e1, _ = tx.StreamGet("u1"); return nil })
	_ = s.Read(ctx, func(tx store.Tx) error { e2, _ = tx.StreamGet("u1"); return nil })
	if e1.Epoch == "" || e1 != e2 {
		t.Fatalf("epoch of an empty stream changed: %+v %+v", e1, e2)
	}
	for i := 0; i < 3; i++ {
		write(t, s, func(tx store.Tx) error {
			next, err := tx.NextOffset("u1")
			if err != nil {
				return err
			}
			u, err := tx.UpdateAppend("u1", protocol.UpdSessionUpdated, map[string]int{"i": i})
			if err == nil && u.Offset != next {
				return fmt.Errorf("NextOffset %d, assigned %d", next, u.Offset)
			}
			if _, err := tx.UpdateAppend("u2", protocol.UpdSessionUpdated, nil); err != nil {
				return err
			}
			_, err = tx.UpdateAppend("u1", protocol.UpdTurnUpdated, nil)
			return err
		})
	}
	// One update per user and commit, carrying that commit's changes in order.
	if got := fmt.Sprint(h.offsets("u1")); got != "[1 2 3]" {
		t.Fatalf("u1 hook offsets %s", got)
	}
	if got := fmt.Sprint(h.offsets("u2")); got != "[1 2 3]" {
		t.Fatalf("u2 hook offsets %s", got)
	}
	var list []protocol.Update
	var pos store.StreamPos
	err := s.Read(ctx, func(tx store.Tx) error {
		var err error
		list, pos, err = tx.UpdateList("u1", 1, 100, 0)
		return err
	})
	if err != nil || len(list) != 2 || list[0].Offset != 2 || pos.Top != 3 || pos.Epoch != e1.Epoch || list[0].Epoch != pos.Epoch {
		t.Fatalf("list after 1: %v %+v %v", len(list), pos, err)
	}
	if c := list[0].Changes; len(c) != 2 || c[0].Type != protocol.UpdSessionUpdated || string(c[0].Data) != `{"i":1}` || c[1].Type != protocol.UpdTurnUpdated {
		t.Fatalf("changes of offset 2: %+v", c)
	}
}

// An entity written twice in one commit travels once, as it is at the end, in
// the place and with the type of its first change. Inside the transaction the
// open update is not in the stored history; UpdateOpen shows it.
func testOneUpdatePerCommit(t *testing.T, s store.Store, _ *Clock) {
	var h hookRecorder
	s.SetCommitHook(h.hook)
	sess := &protocol.Session{ID: "s1", UserID: "u", Title: "first"}
	turn := &protocol.Turn{ID: "t1", SessionID: "s1", UserID: "u"}
	write(t, s, func(tx store.Tx) error {
		if _, err := tx.UpdateAppend("u", protocol.UpdSessionCreated, sess); err != nil {
			return err
		}
		if _, err := tx.UpdateAppend("u", protocol.UpdTurnCreated, turn); err != nil {
			return err
		}
		sess.Title = "second"
		if _, err := tx.UpdateAppend("u", protocol.UpdSessionUpdated, sess); err != nil {
			return err
		}
		list, pos, err := tx.UpdateList("u", 0, 10, 0)
		if err != nil || len(list) != 0 || pos.Top != 1 {
			return fmt.Errorf("stored history inside the transaction: %d updates, top %d, %v", len(list), pos.Top, err)
		}
		open, ok := tx.UpdateOpen("u")
		if !ok || open.Offset != 1 || len(open.Changes) != 2 {
			return fmt.Errorf("open update: %v %+v", ok, open)
		}
		if off, err := tx.NextOffset("u"); err != nil || off != 1 {
			return fmt.Errorf("next offset with an open update: %d %v", off, err)
		}
		_, err = tx.UpdateAppend("u", protocol.UpdTurnUpdated, turn)
		return err
	})
	if got := fmt.Sprint(h.offsets("u")); got != "[1]" {
		t.Fatalf("offsets %s", got)
	}
	var list []protocol.Update
	_ = s.Read(ctx, func(tx store.Tx) error { list, _, _ = tx.UpdateList("u", 0, 10, 0); return nil })
	if len(list) != 1 {
		t.Fatalf("%d updates stored", len(list))
	}
	var kinds []string
	for _, c := range list[0].Changes {
		kinds = append(kinds, c.Type)
	}
	if got := strings.Join(kinds, " "); got != "session.created turn.created" {
		t.Fatalf("changes: %s", got)
	}
	var got protocol.Session
	if err := json.Unmarshal(list[0].Changes[0].Data, &got); err != nil || got.Title != "second" {
		t.Fatalf("the session travels as it is at commit: %q %v", got.Title, err)
	}
	// The committed update carries the payload it was stored as, which is
	// what is published: the stored update, encoded.
	stored, err := store.EncodeUpdate(list[0])
	h.mu.Lock()
	committed := h.commits[len(h.commits)-1].Updates[0].Payload
	h.mu.Unlock()
	if err != nil || string(committed) != string(stored) {
		t.Fatalf("committed payload %s, stored %s (%v)", committed, stored, err)
	}
}

// A write transaction reads a session or a turn it holds (under its user's
// stream lock) once: reading it again sends no statement and returns what the
// transaction last wrote.
func testReadOncePerWrite(t *testing.T, s store.Store, _ *Clock) {
	write(t, s, func(tx store.Tx) error {
		if err := tx.SessionInsert(&protocol.Session{ID: "s1", UserID: "u", Title: "a"}); err != nil {
			return err
		}
		return tx.TurnInsert(&protocol.Turn{ID: "t1", SessionID: "s1", UserID: "u", Seq: 1, Status: protocol.TurnRunning})
	})
	reads := func() int64 {
		c := store.ReadTableCounts()
		return c["select sessions"] + c["select turns"]
	}
	write(t, s, func(tx store.Tx) error {
		sess, err := tx.SessionGet("s1")
		if err != nil {
			return err
		}
		if _, err := tx.NextOffset("u"); err != nil { // the lock, as a transition takes it
			return err
		}
		tr, err := tx.TurnGet("t1")
		if err != nil {
			return err
		}
		before := reads()
		sess.Title = "b"
		if err := tx.SessionUpdate(sess); err != nil {
			return err
		}
		tr.Status = protocol.TurnWaiting
		if err := tx.TurnUpdate(tr, protocol.TurnRunning); err != nil {
			return err
		}
		again, err := tx.SessionGet("s1")
		if err != nil || again.Title != "b" {
			return fmt.Errorf("session read again: %+v %v", again, err)
		}
		turn, err := tx.TurnGet("t1")
		if err != nil || turn.Status != protocol.TurnWaiting {
			return fmt.Errorf("turn read again: %+v %v", turn, err)
		}
		if n := reads() - before; n != 0 {
			return fmt.Errorf("reading them again sent %d statements", n)
		}
		return nil
	})
}

func testConcurrentOffsets(t *testing.T, s store.Store, _ *Clock) {
	var h hookRecorder
	s.SetCommitHook(h.hook)
	var wg sync.WaitGroup
	for i := 0; i < 20; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := 0; j < 5; j++ {
				if err := s.Write(ctx, func(tx store.Tx) error {
					_, err := tx.UpdateAppend("u", protocol.UpdRTCUpdated, nil)
					return err
				}); err != nil {
					t.Error(err)
				}
			}
		}()
	}
	wg.Wait()
	offs := h.offsets("u")
	if len(offs) != 100 {
		t.Fatalf("%d updates", len(offs))
	}
	for i, o := range offs {
		if o != int64(i+1) {
			t.Fatalf("hook saw offset %d at position %d: commits out of order", o, i)
		}
	}
}

func testRollback(t *testing.T, s store.Store, _ *Clock) {
	var h hookRecorder
	s.SetCommitHook(h.hook)
	boom := errors.New("boom")
	err := s.Write(ctx, func(tx store.Tx) error {
		if _, err := tx.UpdateAppend("u", protocol.UpdSessionCreated, nil); err != nil {
			return err
		}
		if err := tx.InboxInsert(&store.InboxItem{SessionID: "s", Kind: "k", TurnID: "t"}); err != nil {
			return err
		}
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("err %v", err)
	}
	if len(h.commits) != 0 {
		t.Fatal("hook called for a rolled back transaction")
	}
	err = s.Read(ctx, func(tx store.Tx) error {
		if list, pos, err := tx.UpdateList("u", 0, 10, 0); err != nil || len(list) != 0 || pos.Top != 0 {
			return fmt.Errorf("updates survived rollback: %d top %d %v", len(list), pos.Top, err)
		}
		if _, err := tx.InboxNext("s"); !errors.Is(err, store.ErrNotFound) {
			return fmt.Errorf("inbox survived rollback: %v", err)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// Concurrent writes of which some fail: each failure takes back only its own work
// (an implementation that commits writes together must keep them apart).
func testConcurrentRollback(t *testing.T, s store.Store, _ *Clock) {
	var h hookRecorder
	s.SetCommitHook(h.hook)
	boom := errors.New("boom")
	var wg sync.WaitGroup
	var mu sync.Mutex
	okCount := 0
	for i := 0; i < 16; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := 0; j < 9; j++ {
				fail := (i+j)%3 == 0
				err := s.Write(ctx, func(tx store.Tx) error {
					if _, err := tx.UpdateAppend("u", protocol.UpdRTCUpdated, nil); err != nil {
						return err
					}
					if err := tx.InboxInsert(&store.InboxItem{SessionID: fmt.Sprintf("s%d-%d", i, j), Kind: "k", TurnID: "t"}); err != nil {
						return err
					}
					if fail {
						return boom
					}
					return nil
				})
				switch {
				case fail && !errors.Is(err, boom):
					t.Errorf("failing write returned %v", err)
				case !fail && err != nil:
					t.Error(err)
				case !fail:
					mu.Lock()
					okCount++
					mu.Unlock()
				}
			}
		}()
	}
	wg.Wait()
	offs := h.offsets("u")
	if len(offs) != okCount {
		t.Fatalf("hook saw %d updates for %d successful writes", len(offs), okCount)
	}
	for i, o := range offs {
		if o != int64(i+1) {
			t.Fatalf("hook saw offset %d at position %d", o, i)
		}
	}
	err := s.Read(ctx, func(tx store.Tx) error {
		list, pos, err := tx.UpdateList("u", 0, 1000, 0)
		if err != nil || len(list) != okCount || pos.Top != int64(okCount) {
			return fmt.Errorf("%d updates, top %d, want %d: %v", len(list), pos.Top, okCount, err)
		}
		for i := 0; i < 16; i++ {
			for j := 0; j < 9; j++ {
				_, err := tx.InboxNext(fmt.Sprintf("s%d-%d", i, j))
				if (i+j)%3 == 0 && !errors.Is(err, store.ErrNotFound) {
					return fmt.Errorf("inbox item of failed write s%d-%d survived: %v", i, j, err)
				}
				if (i+j)%3 != 0 && err != nil {
					return fmt.Errorf("inbox item of write s%d-%d: %v", i, j, err)
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func testCAS(t *testing.T, s store.Store, _ *Clock) {
	r := &protocol.RTC{ID: "r1", SessionID: "s", TurnID: "t", UserID: "u", Seq: 1, Status: protocol.RTCPending}
	tr := &protocol.Turn{ID: "t1", SessionID: "s", UserID: "u", Seq: 1, Status: protocol.TurnRunning}
	m := &protocol.Message{ID: "m1", SessionID: "s", UserID: "u", Seq: 1, Status: protocol.MessageStreaming}
	write(t, s, func(tx store.Tx) error {
		return errors.Join(tx.RTCInsert(r), tx.TurnInsert(tr), tx.MessageInsert(m, ""))
	})
	r.Status, tr.Status, m.Status = protocol.RTCCompleted, protocol.TurnWaiting, protocol.MessageComplete
	write(t, s, func(tx store.Tx) error {
		return errors.Join(tx.RTCUpdate(r, protocol.RTCPending), tx.TurnUpdate(tr, protocol.TurnRunning), tx.MessageUpdate(m, protocol.MessageStreaming))
	})
	err := s.Write(ctx, func(tx store.Tx) error { return tx.RTCUpdate(r, protocol.RTCPending) })
	if !errors.Is(err, store.ErrConflict) {
		t.Fatalf("second CAS from pending: %v", err)
	}
	err = s.Write(ctx, func(tx store.Tx) error { return tx.TurnUpdate(tr, protocol.TurnRunning) })
	if !errors.Is(err, store.ErrConflict) {
		t.Fatalf("turn CAS: %v", err)
	}
	err = s.Write(ctx, func(tx store.Tx) error { return tx.MessageUpdate(m, protocol.MessageStreaming) })
	if !errors.Is(err, store.ErrConflict) {
		t.Fatalf("message CAS: %v", err)
	}
	err = s.Write(ctx, func(tx store.Tx) error { return tx.RTCUpdate(&protocol.RTC{ID: "nope"}, protocol.RTCPending) })
	if !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("CAS on a missing row: %v", err)
	}
	got := must(readRTC(s, "r1"))(t)
	if got.Status != protocol.RTCCompleted {
		t.Fatalf("stored status %s", got.Status)
	}
}

func readRTC(s store.Store, id string) (*protocol.RTC, error) {
	var r *protocol.RTC
	err := s.Read(ctx, func(tx store.Tx) error {
		var err error
		r, err = tx.RTCGet(id)
		return err
	})
	return r, err
}

func testClientID(t *testing.T, s store.Store, _ *Clock) {
	m := &protocol.Message{ID: "m1", SessionID: "s", UserID: "u", Seq: 1, Status: protocol.MessageComplete}
	write(t, s, func(tx store.Tx) error { return tx.MessageInsert(m, "c1") })
	err := s.Write(ctx, func(tx store.Tx) error {
		return tx.MessageInsert(&protocol.Message{ID: "m2", SessionID: "s", UserID: "u", Seq: 2}, "c1")
	})
	if !errors.Is(err, store.ErrDuplicate) {
		t.Fatalf("duplicate client id: %v", err)
	}
	// Another user may use the same client id.
	write(t, s, func(tx store.Tx) error {
		return tx.MessageInsert(&protocol.Message{ID: "m3", SessionID: "s2", UserID: "other", Seq: 1}, "c1")
	})
	err = s.Read(ctx, func(tx store.Tx) error {
		got, err := tx.MessageByClientID("u", "c1")
		if err == nil && got.ID != "m1" {
			err = fmt.Errorf("got %s", got.ID)
		}
		if _, err2 := tx.MessageByClientID("u", "c9"); !errors.Is(err2, store.ErrNotFound) {
			return fmt.Errorf("unknown client id: %v", err2)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}

func testLease(t *testing.T, s store.Store, clock *Clock) {
	var a, b store.Lease
	write(t, s, func(tx store.Tx) error {
		var err error
		a, err = tx.LeaseAcquire("s", "A", 10*time.Second)
		return err
	})
	err := s.Write(ctx, func(tx store.Tx) error { _, err := tx.LeaseAcquire("s", "B", 10*time.Second); return err })
	if !errors.Is(err, store.ErrConflict) {
		t.Fatalf("B took a live lease: %v", err)
	}
	clock.Advance(11 * time.Second)
	write(t, s, func(tx store.Tx) error {
		var err error
		b, err = tx.LeaseAcquire("s", "B", 10*time.Second)
		return err
	})
	if b.Token <= a.Token {
		t.Fatalf("token did not grow: %d -> %d", a.Token, b.Token)
	}
	err = s.Write(ctx, func(tx store.Tx) error { return tx.LeaseCheck(a) })
	if !errors.Is(err, store.ErrLeaseLost) {
		t.Fatalf("stale holder passed the fence: %v", err)
	}
	err = s.Write(ctx, func(tx store.Tx) error { _, err := tx.LeaseRenew(a, time.Minute); return err })
	if !errors.Is(err, store.ErrLeaseLost) {
		t.Fatalf("stale holder renewed: %v", err)
	}
	write(t, s, func(tx store.Tx) error { return tx.LeaseCheck(b) })
	write(t, s, func(tx store.Tx) error { return tx.LeaseRelease(a) }) // a stale release changes nothing
	write(t, s, func(tx store.Tx) error { return tx.LeaseCheck(b) })
	write(t, s, func(tx store.Tx) error { return tx.LeaseRelease(b) })
	var c store.Lease
	write(t, s, func(tx store.Tx) error {
		var err error
		c, err = tx.LeaseAcquire("s", "A", 10*time.Second)
		return err
	})
	if c.Token <= b.Token {
		t.Fatalf("token after release did not grow: %d -> %d", b.Token, c.Token)
	}
}

func testInbox(t *testing.T, s store.Store, clock *Clock) {
	var h hookRecorder
	s.SetCommitHook(h.hook)
	write(t, s, func(tx store.Tx) error {
		return errors.Join(
			tx.InboxInsert(&store.InboxItem{SessionID: "s1", Kind: "a", TurnID: "t1"}),
			tx.InboxInsert(&store.InboxItem{SessionID: "s2", Kind: "b", TurnID: "t2"}),
			tx.InboxInsert(&store.InboxItem{SessionID: "s1", Kind: "c", TurnID: "t3"}))
	})
	if len(h.commits) != 1 || len(h.commits[0].Wake) < 2 {
		t.Fatalf("hook wake %+v", h.commits)
	}
	// Work for a session whose lease the transaction holds wakes no one (its
	// holder takes it); once the transaction let the lease go, it does.
	wakeOf := func(release bool) []string {
		h.commits = nil
		write(t, s, func(tx store.Tx) error {
			l, err := tx.LeaseAcquire("s9", "A", time.Second)
			if err != nil {
				return err
			}
			if err := tx.InboxInsert(&store.InboxItem{SessionID: "s9", Kind: "a", TurnID: "t9"}); err != nil {
				return err
			}
			if release {
				return tx.LeaseRelease(l)
			}
			return nil
		})
		var wake []string
		for _, c := range h.commits {
			wake = append(wake, c.Wake...)
		}
		return wake
	}
	if w := wakeOf(false); len(w) != 0 {
		t.Fatalf("work for a held session woke %v", w)
	}
	if w := wakeOf(true); len(w) != 1 || w[0] != "s9" {
		t.Fatalf("work for a session released in the same transaction woke %v", w)
	}
	write(t, s, func(tx store.Tx) error {
		for {
			it, err := tx.InboxNext("s9")
			if errors.Is(err, store.ErrNotFound) {
				return nil
			}
			if err != nil {
				return err
			}
			if err := tx.InboxDelete(*it); err != nil {
				return err
			}
		}
	})
	write(t, s, func(tx store.Tx) error { _, err := tx.LeaseAcquire("s2", "A", time.Second); return err })
	var ids []string
	var first *store.InboxItem
	err := s.Read(ctx, func(tx store.Tx) error {
		var err error
		if ids, err = tx.InboxSessions(10); err != nil {
			return err
		}
		first, err = tx.InboxNext("s1")
		return err
	})
	if err != nil || fmt.Sprint(ids) != "[s1]" || first.Kind != "a" {
		t.Fatalf("sessions %v first %+v err %v", ids, first, err)
	}
	clock.Advance(2 * time.Second)
	write(t, s, func(tx store.Tx) error { return tx.InboxDelete(*first) })
	err = s.Read(ctx, func(tx store.Tx) error {
		var err error
		if ids, err = tx.InboxSessions(10); err != nil {
			return err
		}
		first, err = tx.InboxNext("s1")
		return err
	})
	if err != nil || len(ids) != 2 || first.Kind != "c" {
		t.Fatalf("after expiry/delete: sessions %v next %+v %v", ids, first, err)
	}
}

// A turn's checkpoint is stored with the turn, read back with it (byte for
// byte), and never part of the turn as sent.
// InboxFinish deletes an item and releases the lease only when it was the
// session's last; work queued in the same transaction keeps the lease, and a
// release in it wakes the work others queued.
func testInboxFinish(t *testing.T, s store.Store, _ *Clock) {
	var h hookRecorder
	s.SetCommitHook(h.hook)
	var l store.Lease
	items := make([]*store.InboxItem, 3)
	write(t, s, func(tx store.Tx) error {
		var err error
		if l, err = tx.LeaseAcquire("s", "A", time.Minute); err != nil {
			return err
		}
		for i := range items {
			items[i] = &store.InboxItem{SessionID: "s", Kind: "k", TurnID: fmt.Sprint("t", i)}
			if err := tx.InboxInsert(items[i]); err != nil {
				return err
			}
		}
		return nil
	})
	finish := func(it *store.InboxItem) bool {
		var released bool
		write(t, s, func(tx store.Tx) error { return tx.InboxFinish(it.ID, l, &released) })
		return released
	}
	held := func() bool {
		err := s.Write(ctx, func(tx store.Tx) error { return tx.LeaseCheck(l) })
		if err != nil && !errors.Is(err, store.ErrLeaseLost) {
			t.Fatal(err)
		}
		return err == nil
	}
	// The middle one first: items before and after it keep the drain going.
	if finish(items[1]) || !held() {
		t.Fatal("finishing an item while others wait released the lease")
	}
	if finish(items[0]) || !held() {
		t.Fatal("finishing the oldest while one waits released the lease")
	}
	h.commits = nil
	if !finish(items[2]) || held() {
		t.Fatal("finishing the last item kept the lease")
	}
	err := s.Read(ctx, func(tx store.Tx) error { _, err := tx.InboxNext("s"); return err })
	if !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("items left: %v", err)
	}
	// An item queued by the holder in the transaction that then finishes the
	// last one: the drain goes on (the lease is kept) and no one is woken.
	extra := store.InboxItem{SessionID: "s", Kind: "k", TurnID: "t4"}
	write(t, s, func(tx store.Tx) error {
		var err error
		if l, err = tx.LeaseAcquire("s", "A", time.Minute); err != nil {
			return err
		}
		return tx.InboxInsert(&store.InboxItem{SessionID: "s", Kind: "k", TurnID: "t3"})
	})
	h.commits = nil
	var released bool
	write(t, s, func(tx store.Tx) error {
		if err := tx.LeaseCheck(l); err != nil { // the drain's fenced write
			return err
		}
		if err := tx.InboxInsert(&extra); err != nil {
			return err
		}
		it, err := tx.InboxNext("s")
		if err != nil {
			return err
		}
		return tx.InboxFinish(it.ID, l, &released)
	})
	if released {
		t.Error("released with an item queued in the same transaction")
	}
	if !held() {
		t.Fatal("the lease went with work left")
	}
	for _, c := range h.commits {
		if len(c.Wake) > 0 {
			t.Fatalf("work for a held session woke %v", c.Wake)
		}
	}
}

// InboxNext in the transaction that queued work answers as a fresh read would:
// the session's oldest item, the new one only when the session had none, and
// nothing of an item the transaction deleted.
func testInboxNextAfterInsert(t *testing.T, s store.Store, _ *Clock) {
	var older store.InboxItem
	write(t, s, func(tx store.Tx) error {
		older = store.InboxItem{SessionID: "busy", Kind: "old", TurnID: "t0"}
		return tx.InboxInsert(&older)
	})
	write(t, s, func(tx store.Tx) error {
		if err := tx.InboxInsert(&store.InboxItem{SessionID: "busy", Kind: "new", TurnID: "t1"}); err != nil {
			return err
		}
		if it, err := tx.InboxNext("busy"); err != nil || it.ID != older.ID || it.Kind != "old" {
			t.Errorf("a session with an older item: next is %+v (%v), want the older one", it, err)
		}
		first := store.InboxItem{SessionID: "idle", Kind: "a", TurnID: "t2"}
		if err := tx.InboxInsert(&first); err != nil {
			return err
		}
		if err := tx.InboxInsert(&store.InboxItem{SessionID: "idle", Kind: "b", TurnID: "t3"}); err != nil {
			return err
		}
		it, err := tx.InboxNext("idle")
		if err != nil || it.ID != first.ID || it.ID == 0 || it.Kind != "a" || it.TurnID != "t2" || it.CreatedAt.IsZero() {
			t.Errorf("an idle session: next is %+v (%v), want its first new item %+v", it, err, first)
		}
		if err := tx.InboxDelete(first); err != nil {
			return err
		}
		if it, err := tx.InboxNext("idle"); err != nil || it.Kind != "b" {
			t.Errorf("after deleting it: next is %+v (%v), want the second", it, err)
		}
		return nil
	})
}

func testCheckpoint(t *testing.T, s store.Store, _ *Clock) {
	at := time.Date(2026, 12, 5, 10, 0, 0, 0, time.UTC)
	turn := &protocol.Turn{ID: "t", SessionID: "s", UserID: "u", Seq: 1, Status: protocol.TurnRunning}
	write(t, s, func(tx store.Tx) error { return tx.TurnInsert(turn) })
	write(t, s, func(tx store.Tx) error {
		turn.Status, turn.Checkpoint = protocol.TurnWaiting, &protocol.TurnCheckpoint{ExpiresAt: at}
		return tx.TurnUpdate(turn, protocol.TurnRunning)
	})
	var got *protocol.Turn
	if err := s.Read(ctx, func(tx store.Tx) error { var err error; got, err = tx.TurnGet("t"); return err }); err != nil {
		t.Fatal(err)
	}
	if c := got.Checkpoint; c == nil || !c.ExpiresAt.Equal(at) {
		t.Fatalf("checkpoint read back: %+v", c)
	}
	if wire, _ := json.Marshal(got); strings.Contains(string(wire), "checkpoint") || strings.Contains(string(wire), "expires_at") {
		t.Fatalf("the checkpoint is sent: %s", wire)
	}
	write(t, s, func(tx store.Tx) error {
		got.Status, got.Checkpoint = protocol.TurnCompleted, nil
		return tx.TurnUpdate(got, protocol.TurnWaiting)
	})
	if err := s.Read(ctx, func(tx store.Tx) error { var err error; got, err = tx.TurnGet("t"); return err }); err != nil || got.Checkpoint != nil {
		t.Fatalf("checkpoint after it was dropped: %+v %v", got.Checkpoint, err)
	}
}

func testHistory(t *testing.T, s store.Store, clock *Clock) {
	for i := 0; i < 10; i++ {
		write(t, s, func(tx store.Tx) error { _, err := tx.UpdateAppend("u", protocol.UpdTurnUpdated, nil); return err })
		clock.Advance(time.Minute)
	}
	var n int64
	write(t, s, func(tx store.Tx) error {
		var err error
		n, err = tx.UpdatePrune(tx.Now().Add(-5*time.Minute+time.Second), 2)
		return err
	})
	var pos store.StreamPos
	var list []protocol.Update
	err := s.Read(ctx, func(tx store.Tx) error {
		var err error
		list, pos, err = tx.UpdateList("u", 0, 100, 0)
		return err
	})
	if err != nil || n != 6 || pos.Floor != 6 || len(list) != 4 || list[0].Offset != 7 {
		t.Fatalf("prune: n=%d floor=%d list=%d err=%v", n, pos.Floor, len(list), err)
	}
	old := pos.Epoch
	write(t, s, func(tx store.Tx) error { var err error; pos, err = tx.StreamReset("u"); return err })
	if pos.Epoch == old || pos.Floor != 10 || pos.Top != 10 {
		t.Fatalf("reset: %+v", pos)
	}
	var u protocol.Update
	write(t, s, func(tx store.Tx) error {
		var err error
		u, err = tx.UpdateAppend("u", protocol.UpdTurnUpdated, nil)
		return err
	})
	if u.Offset != 11 || u.Epoch != pos.Epoch {
		t.Fatalf("after reset: %+v", u)
	}
}

func testRTCQueries(t *testing.T, s store.Store, clock *Clock) {
	now := clock.Now()
	d1, d2 := now.Add(time.Minute), now.Add(time.Hour)
	write(t, s, func(tx store.Tx) error {
		return errors.Join(
			tx.RTCInsert(&protocol.RTC{ID: "a", SessionID: "s", TurnID: "t", UserID: "u", Seq: 1, Status: protocol.RTCPending, DeadlineAt: &d1}),
			tx.RTCInsert(&protocol.RTC{ID: "b", SessionID: "s", TurnID: "t", UserID: "u", Seq: 2, Status: protocol.RTCQueued}),
			tx.RTCInsert(&protocol.RTC{ID: "c", SessionID: "s", TurnID: "t2", UserID: "u", Seq: 1, Status: protocol.RTCSent, DeadlineAt: &d2}),
			tx.RTCInsert(&protocol.RTC{ID: "d", SessionID: "s", TurnID: "t2", UserID: "u", Seq: 2, Status: protocol.RTCCompleted}),
			tx.RTCInsert(&protocol.RTC{ID: "e", SessionID: "x", TurnID: "t3", UserID: "v", Seq: 1, Status: protocol.RTCPending}))
	})
	clock.Advance(2 * time.Minute)
	err := s.Read(ctx, func(tx store.Tx) error {
		open, err := tx.RTCListOpenByUser("u", 10)
		if err != nil || len(open) != 3 {
			return fmt.Errorf("open: %d %v", len(open), err)
		}
		exp, err := tx.RTCListExpired(tx.Now(), 10)
		if err != nil || len(exp) != 1 || exp[0].ID != "a" {
			return fmt.Errorf("expired: %v %v", exp, err)
		}
		byTurn, err := tx.RTCListByTurn("t")
		if err != nil || len(byTurn) != 2 || byTurn[0].ID != "a" {
			return fmt.Errorf("by turn %v %v", byTurn, err)
		}
		openT2, err := tx.RTCListOpenByTurn("t2")
		if err != nil || len(openT2) != 1 || openT2[0].ID != "c" {
			return fmt.Errorf("open by turn %v %v", openT2, err)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func testSessionList(t *testing.T, s store.Store, _ *Clock) {
	write(t, s, func(tx store.Tx) error {
		for i := 1; i <= 5; i++ {
			if err := tx.SessionInsert(&protocol.Session{ID: fmt.Sprintf("s%d", i), UserID: "u"}); err != nil {
				return err
			}
		}
		return tx.SessionInsert(&protocol.Session{ID: "other", UserID: "v"})
	})
	err := s.Read(ctx, func(tx store.Tx) error {
		p1, err := tx.SessionList("u", "", 3)
		if err != nil || len(p1) != 3 || p1[0].ID != "s5" {
			return fmt.Errorf("page 1 %v %v", p1, err)
		}
		p2, err := tx.SessionList("u", p1[2].ID, 3)
		if err != nil || len(p2) != 2 || p2[0].ID != "s2" {
			return fmt.Errorf("page 2 %v %v", p2, err)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// testPageBytes: a page of history ends before the update that would pass the
// byte bound, holds at least one update however large, and the pages together
// hold every update in order.
func testPageBytes(t *testing.T, s store.Store, _ *Clock) {
	const n, size, bound = 40, 100 << 10, 512 << 10
	big := strings.Repeat("x", size)
	for i := 0; i < n; i++ {
		data := big
		if i == 7 {
			data = big + big + big + big + big + big // one update larger than the bound
		}
		write(t, s, func(tx store.Tx) error {
			_, err := tx.UpdateAppend("u", protocol.UpdMessageUpdated, map[string]string{"text": data})
			return err
		})
	}
	var since int64
	pages := 0
	for since < n {
		err := s.Read(ctx, func(tx store.Tx) error {
			list, _, err := tx.UpdateList("u", since, 1000, bound)
			if err != nil {
				return err
			}
			if len(list) == 0 {
				return fmt.Errorf("an empty page after %d", since)
			}
			total := 0
			for _, u := range list {
				if u.Offset != since+1 {
					return fmt.Errorf("offset %d after %d", u.Offset, since)
				}
				since = u.Offset
				for _, c := range u.Changes {
					total += len(c.Data)
				}
			}
			if len(list) > 1 && total > bound {
				return fmt.Errorf("a page of %d updates holds %d bytes, over %d", len(list), total, bound)
			}
			if len(list) == 1 && total < bound/2 && since < n {
				return fmt.Errorf("a page stopped after one update of %d bytes", total)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		pages++
	}
	if pages < n*size/bound {
		t.Fatalf("%d pages for %d bytes under a bound of %d", pages, n*size, bound)
	}
}
