package sqlitestore_test

import (
	"context"
	"database/sql"
	"errors"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/rtcagent/rtcagent/internal/protocol"
	"github.com/rtcagent/rtcagent/internal/store"
	"github.com/rtcagent/rtcagent/internal/store/sqlitestore"
)

// inboxRows counts the rows of the file's inbox, read apart from the store.
func inboxRows(t *testing.T, path string) int {
	t.Helper()
	raw, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(5000)")
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	var n int
	if err := raw.QueryRowContext(context.Background(), `SELECT count(*) FROM inbox`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// inboxSessions lists the sessions with work as a claim pass reads them.
func inboxSessions(t *testing.T, s *sqlitestore.Store) []string {
	t.Helper()
	var ids []string
	if err := s.Read(context.Background(), func(tx store.Tx) (err error) { ids, err = tx.InboxSessions(-1); return err }); err != nil {
		t.Fatal(err)
	}
	slices.Sort(ids)
	return ids
}

// A turn's resumption is kept by the writer without a row: it is queued in
// order with the table's items, found by claim passes, taken back with a
// write that fails, and gone once deleted.
func TestResumeItemsWriteNoRow(t *testing.T) {
	path, s, write := writerStore(t)
	start := store.InboxItem{SessionID: "s1", Kind: "turn.start", TurnID: "t0"}
	resume := store.InboxItem{SessionID: "s1", Kind: store.KindTurnResume, TurnID: "t1"}
	if err := write(func(tx store.Tx) error {
		if err := tx.InboxInsert(&start); err != nil {
			return err
		}
		return tx.InboxInsert(&resume)
	}); err != nil {
		t.Fatal(err)
	}
	if n := inboxRows(t, path); n != 1 {
		t.Fatalf("%d inbox rows, want 1 (the start item only)", n)
	}
	if got := inboxSessions(t, s); !slices.Equal(got, []string{"s1"}) {
		t.Fatalf("sessions with work %v", got)
	}
	next := func() (*store.InboxItem, error) {
		var it *store.InboxItem
		err := write(func(tx store.Tx) (err error) { it, err = tx.InboxNext("s1"); return err })
		return it, err
	}
	if it, err := next(); err != nil || *it != start {
		t.Fatalf("next %+v %v, want the start item first", it, err)
	}
	var released bool
	l := store.Lease{}
	if err := write(func(tx store.Tx) (err error) {
		if l, err = tx.LeaseAcquire("s1", "h", time.Minute); err != nil {
			return err
		}
		return tx.InboxFinish(start.ID, l, &released)
	}); err != nil || released {
		t.Fatalf("finish the start item: %v, released %v (the resume is left)", err, released)
	}
	if it, err := next(); err != nil || *it != resume {
		t.Fatalf("next %+v %v, want the resume item", it, err)
	}

	// A write that fails takes its items back, whatever it queued or deleted.
	boom := errors.New("boom")
	if err := write(func(tx store.Tx) error {
		if err := tx.InboxDelete(resume); err != nil {
			return err
		}
		if err := tx.InboxInsert(&store.InboxItem{SessionID: "s2", Kind: store.KindTurnResume, TurnID: "t2"}); err != nil {
			return err
		}
		return boom
	}); !errors.Is(err, boom) {
		t.Fatal(err)
	}
	if it, err := next(); err != nil || *it != resume {
		t.Fatalf("next %+v %v after a failed write, want the resume item", it, err)
	}
	if got := inboxSessions(t, s); len(got) != 0 {
		t.Fatalf("sessions with work after a failed write %v, want none (s1 is held, s2's item was not queued)", got)
	}
	if err := write(func(tx store.Tx) error { return tx.InboxFinish(resume.ID, l, &released) }); err != nil || !released {
		t.Fatalf("finish the resume item: %v, released %v", err, released)
	}
	if got := inboxSessions(t, s); len(got) != 0 {
		t.Fatalf("sessions with work once the resume was taken and s1 given back %v", got)
	}
	if it, err := next(); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("next %+v %v, want none", it, err)
	}
}

// A writer that starts derives the resume items from the turns: a turn
// waiting with no open call, and a running turn no start item names. A store
// that has not written yet finds the same in its claim passes.
func TestResumeItemsDerivedFromTheTurns(t *testing.T) {
	path := filepath.Join(t.TempDir(), "test.db")
	s, err := sqlitestore.Open(context.Background(), path, sqlitestore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	write := func(fn func(tx store.Tx) error) error { return s.Write(context.Background(), fn) }
	turn := func(tx store.Tx, session, id, status, kind string) error {
		return tx.TurnInsert(&protocol.Turn{ID: id, SessionID: session, UserID: "u", Seq: 1, Status: status, Kind: kind})
	}
	call := func(tx store.Tx, session, turn, id, status string) error {
		return tx.RTCInsert(&protocol.RTC{ID: id, SessionID: session, TurnID: turn, UserID: "u", Seq: 1, Status: status, ToolName: "ls"})
	}
	if err := write(func(tx store.Tx) error {
		for _, err := range []error{
			turn(tx, "s1", "t1", protocol.TurnWaiting, ""), call(tx, "s1", "t1", "r1", protocol.RTCPending), // a call still open
			turn(tx, "s2", "t2", protocol.TurnWaiting, ""), call(tx, "s2", "t2", "r2", protocol.RTCCompleted), // its calls ended
			turn(tx, "s3", "t3", protocol.TurnRunning, ""),                                       // its step was cut off,
			tx.InboxInsert(&store.InboxItem{SessionID: "s3", Kind: "rtc.execute", TurnID: "t3"}), // after queuing a call
			turn(tx, "s4", "t4", protocol.TurnRunning, ""),                                       // runs from its start item
			tx.InboxInsert(&store.InboxItem{SessionID: "s4", Kind: "turn.start", TurnID: "t4"}),
			turn(tx, "s5", "t5", protocol.TurnWaiting, protocol.TurnKindApp), // a view's turn ends with its call
			turn(tx, "s6", "t6", protocol.TurnCompleted, ""),
			turn(tx, "s7", "t7", protocol.TurnWaiting, ""), // its resume a row of an earlier release
		} {
			if err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if got := inboxSessions(t, s); !slices.Equal(got, []string{"s3", "s4"}) {
		t.Fatalf("sessions with work before a restart %v (no item was queued but s3's and s4's)", got)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	changeBehind(t, path, `INSERT INTO inbox (session_id, id, kind, turn_id, created_at) VALUES ('s7', 100, 'turn.resume', 't7', 0)`)
	want := []string{"s2", "s3", "s4", "s7"}

	reader, err := sqlitestore.Open(context.Background(), path, sqlitestore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := inboxSessions(t, reader); !slices.Equal(got, want) {
		t.Errorf("a store that has not written finds work in %v, want %v", got, want)
	}
	reader.Close()

	s, err = sqlitestore.Open(context.Background(), path, sqlitestore.Options{Writer: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if got := inboxSessions(t, s); !slices.Equal(got, want) {
		t.Errorf("the writer finds work in %v, want %v", got, want)
	}
	if err := s.Write(context.Background(), func(tx store.Tx) error {
		// s3's step runs again before the call it queued.
		for session, turn := range map[string]string{"s2": "t2", "s3": "t3", "s7": "t7"} {
			it, err := tx.InboxNext(session)
			if err != nil || it.Kind != store.KindTurnResume || it.TurnID != turn {
				t.Errorf("%s: next %+v %v, want the resume of %s", session, it, err, turn)
				continue
			}
			if err := tx.InboxDelete(*it); err != nil {
				return err
			}
		}
		if it, err := tx.InboxNext("s3"); err != nil || it.Kind != "rtc.execute" {
			t.Errorf("s3: next %+v %v once its resume was taken, want the call it queued", it, err)
		}
		if it, err := tx.InboxNext("s7"); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("s7: next %+v %v once its resume was taken, want none (one resume, not two)", it, err)
		}
		it, err := tx.InboxNext("s4")
		if err != nil || it.Kind != "turn.start" {
			t.Errorf("s4: next %+v %v, want its start item alone", it, err)
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
}
