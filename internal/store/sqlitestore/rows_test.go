package sqlitestore_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rtcagent/rtcagent/internal/protocol"
	"github.com/rtcagent/rtcagent/internal/store"
	"github.com/rtcagent/rtcagent/internal/store/sqlitestore"
)

// A write transaction reads the sessions, turns and RTCs the writer committed
// or read before without a statement, each a copy of its own; a write that
// rolled back leaves the rows the writer knows as they were; and in tests a
// row changed behind the writer's back fails the transaction that reads it.
func TestWriterKnowsItsRows(t *testing.T) {
	path, _, write := writerStore(t)
	now := time.Now().UTC()
	if err := write(func(tx store.Tx) error {
		if err := tx.SessionInsert(&protocol.Session{ID: "s1", UserID: "u1", Title: "a", Approvals: []protocol.ToolApproval{{Tool: "write"}}}); err != nil {
			return err
		}
		if err := tx.TurnInsert(&protocol.Turn{ID: "t1", SessionID: "s1", UserID: "u1", Seq: 1, Status: protocol.TurnRunning}); err != nil {
			return err
		}
		return tx.RTCInsert(&protocol.RTC{ID: "r1", SessionID: "s1", TurnID: "t1", UserID: "u1", Seq: 1, Status: protocol.RTCPending,
			ToolName: "ls", CreatedAt: now, Audit: &protocol.AuditState{WorkMode: "edit", DeliveredAt: &now}})
	}); err != nil {
		t.Fatal(err)
	}

	before := store.ReadTableCounts()
	if err := write(func(tx store.Tx) error {
		sess, err := tx.SessionGet("s1")
		if err != nil {
			return err
		}
		sess.Approvals[0].Tool = "changed, not written"
		if _, err := tx.TurnGet("t1"); err != nil {
			return err
		}
		r, err := tx.RTCGet("r1")
		if err == nil {
			*r.Audit.DeliveredAt = now.Add(time.Hour)
		}
		return err
	}); err != nil {
		t.Fatal(err)
	}
	reads := store.ReadTableCounts().Sub(before)
	for _, k := range []string{"select sessions", "select turns", "select rtcs"} {
		if reads[k] != 0 {
			t.Errorf("%d statements of %q for rows the writer knows", reads[k], k)
		}
	}
	if err := write(func(tx store.Tx) error {
		sess, err := tx.SessionGet("s1")
		if err == nil && sess.Approvals[0].Tool != "write" {
			return errors.New("a change of a read session, never written, reached the next transaction: " + sess.Approvals[0].Tool)
		}
		r, err := tx.RTCGet("r1")
		if err == nil && !r.Audit.DeliveredAt.Equal(now) {
			return errors.New("a change of a read RTC, never written, reached the next transaction")
		}
		return err
	}); err != nil {
		t.Fatal(err)
	}

	// A write that rolls back: its turn's change is not known after it.
	failed := errors.New("rolled back")
	if err := write(func(tx store.Tx) error {
		tr, err := tx.TurnGet("t1")
		if err != nil {
			return err
		}
		tr.Status = protocol.TurnCompleted
		if err := tx.TurnUpdate(tr, protocol.TurnRunning); err != nil {
			return err
		}
		return failed
	}); !errors.Is(err, failed) {
		t.Fatal(err)
	}
	if err := write(func(tx store.Tx) error {
		tr, err := tx.TurnGet("t1")
		if err == nil && tr.Status != protocol.TurnRunning {
			err = errors.New("the turn as a rolled back write left it: " + tr.Status)
		}
		return err
	}); err != nil {
		t.Fatal(err)
	}

	// A turn written is read back as written, without a statement.
	if err := write(func(tx store.Tx) error {
		tr, err := tx.TurnGet("t1")
		if err != nil {
			return err
		}
		tr.Step, tr.Checkpoint = 3, &protocol.TurnCheckpoint{ExpiresAt: now.Add(time.Hour)}
		return tx.TurnUpdate(tr, protocol.TurnRunning)
	}); err != nil {
		t.Fatal(err)
	}
	before = store.ReadTableCounts()
	if err := write(func(tx store.Tx) error {
		tr, err := tx.TurnGet("t1")
		if err == nil && (tr.Step != 3 || tr.Checkpoint == nil || !tr.Checkpoint.ExpiresAt.Equal(now.Add(time.Hour))) {
			err = fmt.Errorf("the turn as written: %+v", tr)
		}
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if n := store.ReadTableCounts().Sub(before)["select turns"]; n != 0 {
		t.Errorf("%d reads of a turn the writer wrote", n)
	}

	// A change the writer did not make is caught when the row is next read.
	changeBehind(t, path, `UPDATE turns SET data = json_set(data, '$.step', 5) WHERE id = 't1'`)
	if err := write(func(tx store.Tx) error {
		_, err := tx.TurnGet("t1")
		return err
	}); err == nil || !strings.Contains(err.Error(), "the writer knows turn t1") {
		t.Fatalf("a turn changed behind the writer's back: %v", err)
	}
}

// A second store on the same file, as another process would open it, reads
// but cannot write while the first is open (a server's fails to open): the
// writer knows what it committed only while it is the file's one writer.
// Once the first closes, the second writes, from the inbox ids the first left.
func TestOneWriterProcess(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "test.db")
	first, err := sqlitestore.Open(ctx, path, sqlitestore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	queue := func(s *sqlitestore.Store) (int64, error) {
		item := store.InboxItem{SessionID: "s1", Kind: "turn.start", TurnID: "t1"}
		err := s.Write(ctx, func(tx store.Tx) error { return tx.InboxInsert(&item) })
		return item.ID, err
	}
	if _, err := queue(first); err != nil {
		t.Fatal(err)
	}
	if s, err := sqlitestore.Open(ctx, path, sqlitestore.Options{Writer: true}); err == nil || !strings.Contains(err.Error(), "the embedded store has one writer process") {
		if s != nil {
			s.Close()
		}
		t.Fatalf("a server's store opened on a file another process writes: %v", err)
	}
	second, err := sqlitestore.Open(ctx, path, sqlitestore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer second.Close()
	if _, err := queue(second); err == nil || !strings.Contains(err.Error(), "the embedded store has one writer process") {
		t.Fatalf("a second writer: %v", err)
	}
	if err := second.Read(ctx, func(tx store.Tx) error {
		_, err := tx.InboxNext("s1")
		return err
	}); err != nil {
		t.Fatalf("a second store's read: %v", err)
	}
	if _, err := queue(first); err != nil {
		t.Fatal(err)
	}
	first.Close()
	id, err := queue(second)
	if err != nil || id != 3 {
		t.Fatalf("the second store's write once the first closed: id %d, %v (want 3)", id, err)
	}
}

// Leases live in the writer process: taking, checking, renewing and giving
// one back runs no statement and writes no page, and a session's next holder
// has a higher token than the last, also once its lease was given back.
func TestLeasesWriteNothing(t *testing.T) {
	_, st, write := writerStore(t)
	if err := write(func(tx store.Tx) error { return nil }); err != nil { // the migrations' pages
		t.Fatal(err)
	}
	before, pages := store.ReadTableCounts(), st.Counts()
	var l store.Lease
	if err := write(func(tx store.Tx) (err error) {
		l, err = tx.LeaseAcquire("s1", "n1", time.Minute)
		return err
	}); err != nil {
		t.Fatal(l, err)
	}
	if err := write(func(tx store.Tx) error {
		if err := tx.LeaseCheck(l); err != nil {
			return err
		}
		if _, err := tx.LeaseRenew(l, time.Hour); err != nil {
			return err
		}
		again, err := tx.LeaseAcquire("s1", "n1", time.Minute)
		if err == nil && again.Token != l.Token {
			err = errors.New("the holder's own lease taken again changed its token")
		}
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if err := write(func(tx store.Tx) error { return tx.LeaseRelease(l) }); err != nil {
		t.Fatal(err)
	}
	if n := store.ReadTableCounts().Sub(before); len(n) != 0 {
		t.Errorf("statements for leases: %v", n)
	}
	if n := st.Counts().Sub(pages).Pages; n != 0 {
		t.Errorf("leases wrote %d pages", n)
	}
	if err := write(func(tx store.Tx) error {
		if err := tx.LeaseCheck(l); !errors.Is(err, store.ErrLeaseLost) {
			return errors.New("a released lease still checks")
		}
		next, err := tx.LeaseAcquire("s1", "n1", time.Minute)
		if err == nil && next.Token <= l.Token {
			err = fmt.Errorf("the next holder's token %d is not higher than %d", next.Token, l.Token)
		}
		return err
	}); err != nil {
		t.Fatal(err)
	}
}

// A process that opens the file after the writer's process ended finds
// every session free: the leases ended with the process that held them.
func TestLeasesEndWithTheirProcess(t *testing.T) {
	path := filepath.Join(t.TempDir(), "test.db")
	s, err := sqlitestore.Open(context.Background(), path, sqlitestore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Write(context.Background(), func(tx store.Tx) error {
		_, err := tx.LeaseAcquire("s1", "n1", time.Hour)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	s.Close()
	next, err := sqlitestore.Open(context.Background(), path, sqlitestore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer next.Close()
	if err := next.Write(context.Background(), func(tx store.Tx) error {
		_, err := tx.LeaseAcquire("s1", "n2", time.Hour)
		return err
	}); err != nil {
		t.Fatalf("a session the ended process held: %v", err)
	}
}

// A write transaction finds the next inbox item of a session the writer
// knows without reading it, in queue order, also after items were taken.
func TestWriterKnowsItsInbox(t *testing.T) {
	path, _, write := writerStore(t)
	var first, second store.InboxItem
	if err := write(func(tx store.Tx) error {
		first = store.InboxItem{SessionID: "s1", Kind: "turn.start", TurnID: "t1"}
		second = store.InboxItem{SessionID: "s1", Kind: "rtc.execute", TurnID: "t1"}
		if err := tx.InboxInsert(&first); err != nil {
			return err
		}
		return tx.InboxInsert(&second)
	}); err != nil {
		t.Fatal(err)
	}
	before := store.ReadTableCounts()
	next := func() (store.InboxItem, error) {
		var it store.InboxItem
		err := write(func(tx store.Tx) error {
			n, err := tx.InboxNext("s1")
			if err == nil {
				it = *n
			}
			return err
		})
		return it, err
	}
	if it, err := next(); err != nil || it != first {
		t.Fatalf("next item %+v %v, want %+v", it, err, first)
	}
	if err := write(func(tx store.Tx) error { return tx.InboxDelete(first) }); err != nil {
		t.Fatal(err)
	}
	if it, err := next(); err != nil || it != second {
		t.Fatalf("next item after the first was taken: %+v %v, want %+v", it, err, second)
	}
	if n := store.ReadTableCounts().Sub(before)["select inbox"]; n != 0 {
		t.Errorf("%d reads of an inbox the writer knows", n)
	}
	changeBehind(t, path, `DELETE FROM inbox`)
	if _, err := next(); err == nil || !strings.Contains(err.Error(), "the writer knows the inbox of s1") {
		t.Fatalf("an inbox changed behind the writer's back: %v", err)
	}
}

// writerStore opens a store on a new file; write runs a write transaction on it.
func writerStore(t *testing.T) (path string, s *sqlitestore.Store, write func(func(tx store.Tx) error) error) {
	t.Helper()
	path = filepath.Join(t.TempDir(), "test.db")
	s, err := sqlitestore.Open(context.Background(), path, sqlitestore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return path, s, func(fn func(tx store.Tx) error) error { return s.Write(context.Background(), fn) }
}

// changeBehind changes the file through a connection of its own, as a
// process that ignores the writer's lock would.
func changeBehind(t *testing.T, path, stmt string) {
	t.Helper()
	raw, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(5000)")
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	if _, err := raw.ExecContext(context.Background(), stmt); err != nil {
		t.Fatal(err)
	}
}

// Reads look at the leases while writes take and give them back (the race
// detector watches).
func TestLeasesReadWhileWritten(t *testing.T) {
	_, s, write := writerStore(t)
	if err := write(func(tx store.Tx) error {
		return tx.InboxInsert(&store.InboxItem{SessionID: "s1", Kind: "turn.start", TurnID: "t1"})
	}); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		for range 200 {
			if err := s.Read(context.Background(), func(tx store.Tx) error {
				_, err := tx.InboxSessions(10)
				return err
			}); err != nil {
				t.Error(err)
				return
			}
		}
	}()
	for range 200 {
		if err := write(func(tx store.Tx) error {
			l, err := tx.LeaseAcquire("s1", "n1", time.Minute)
			if err != nil {
				return err
			}
			return tx.LeaseRelease(l)
		}); err != nil {
			t.Fatal(err)
		}
	}
	<-done
}
