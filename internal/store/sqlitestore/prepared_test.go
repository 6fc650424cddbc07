package sqlitestore_test

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/rtcagent/rtcagent/internal/protocol"
	"github.com/rtcagent/rtcagent/internal/store"
	"github.com/rtcagent/rtcagent/internal/store/sqlitestore"
)

// A write's first run, off the writer, reads a session another write changes
// before the first reaches the writer: what it read no longer holds, so its
// function runs again under the writer and both changes stay (no update is
// lost). A write whose reads still hold takes effect from its first run.
func TestPreparedRunThatNoLongerHoldsRunsAgain(t *testing.T) {
	_, s := openWAL(t, sqlitestore.Options{})
	ctx := context.Background()
	sess := &protocol.Session{ID: "s1", UserID: "u1", Status: protocol.SessionOpen}
	mustWrite(t, s, func(tx store.Tx) error { return tx.SessionInsert(sess) })
	// The writer reads it once, and knows it from then on.
	mustWrite(t, s, func(tx store.Tx) error { _, err := tx.SessionGet("s1"); return err })
	addTitle := func(tx store.Tx, c string) error {
		got, err := tx.SessionGet("s1")
		if err != nil {
			return err
		}
		got.Title += c
		return tx.SessionUpdate(got)
	}

	before := s.Counts()
	mustWrite(t, s, func(tx store.Tx) error { return addTitle(tx, "a") })
	if c := s.Counts().Sub(before); c.Prepared != 1 || c.Rerun != 0 {
		t.Fatalf("a write whose reads the writer knows: %d prepared, %d run again; want 1, 0", c.Prepared, c.Rerun)
	}

	var runs atomic.Int32
	read, changed := make(chan struct{}), make(chan struct{})
	done := make(chan error, 1)
	before = s.Counts()
	go func() {
		done <- s.Write(ctx, func(tx store.Tx) error {
			got, err := tx.SessionGet("s1")
			if err != nil {
				return err
			}
			if runs.Add(1) == 1 { // the run off the writer waits for the other write
				close(read)
				<-changed
			}
			got.Title += "b"
			return tx.SessionUpdate(got)
		})
	}()
	<-read
	mustWrite(t, s, func(tx store.Tx) error { return addTitle(tx, "c") })
	close(changed)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if runs.Load() != 2 {
		t.Errorf("the function ran %d times, want 2 (off the writer, then under it)", runs.Load())
	}
	var title string
	if err := s.Read(ctx, func(tx store.Tx) error {
		got, err := tx.SessionGet("s1")
		title = got.Title
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if title != "acb" {
		t.Errorf("title %q, want %q: a change was lost", title, "acb")
	}
	if c := s.Counts().Sub(before); c.Rerun != 1 {
		t.Errorf("%d writes run again, want 1", c.Rerun)
	}
}

// A prepared run's statement that does not take effect as recorded (here an
// insert the unique index refuses) is taken back, and the function runs again
// under the writer, which returns its error.
func TestPreparedStatementThatFailsRunsAgain(t *testing.T) {
	_, s := openWAL(t, sqlitestore.Options{})
	sess := &protocol.Session{ID: "s1", UserID: "u1", Status: protocol.SessionOpen}
	mustWrite(t, s, func(tx store.Tx) error { return tx.SessionInsert(sess) })
	insert := func(id string, seq int64) func(tx store.Tx) error {
		return func(tx store.Tx) error {
			if _, err := tx.UpdateAppend("u1", "message", map[string]string{"id": id}); err != nil {
				return err
			}
			return tx.MessageInsert(&protocol.Message{ID: id, SessionID: "s1", UserID: "u1", Seq: seq, Status: protocol.MessageComplete}, "key")
		}
	}
	mustWrite(t, s, insert("m1", 1))
	before := s.Counts()
	err := s.Write(context.Background(), insert("m2", 2))
	if !errors.Is(err, store.ErrDuplicate) {
		t.Fatalf("a second message with the same client key: %v, want ErrDuplicate", err)
	}
	if c := s.Counts().Sub(before); c.Rerun != 1 || c.Writes != 0 {
		t.Errorf("%d run again and %d committed, want 1 and 0", c.Rerun, c.Writes)
	}
	// Nothing of it stayed: the stream's next offset is the one after the first message's.
	mustWrite(t, s, func(tx store.Tx) error {
		if n, err := tx.NextOffset("u1"); err != nil || n != 2 {
			t.Errorf("next offset %d (%v), want 2", n, err)
		}
		return nil
	})
}

func mustWrite(t *testing.T, s *sqlitestore.Store, fn func(tx store.Tx) error) {
	t.Helper()
	if err := s.Write(context.Background(), fn); err != nil {
		t.Fatal(err)
	}
}

// A prepared compare-and-set on a row the run did not read (so no note
// covers it) that matches no row under the writer runs again there, and
// fails as it must.
func TestPreparedCompareAndSetThatMissesRunsAgain(t *testing.T) {
	_, s := openWAL(t, sqlitestore.Options{})
	tr := &protocol.Turn{ID: "t1", SessionID: "s1", UserID: "u1", Seq: 1, Status: protocol.TurnWaiting}
	mustWrite(t, s, func(tx store.Tx) error {
		if err := tx.SessionInsert(&protocol.Session{ID: "s1", UserID: "u1", Status: protocol.SessionOpen}); err != nil {
			return err
		}
		return tx.TurnInsert(tr)
	})
	before := s.Counts()
	err := s.Write(context.Background(), func(tx store.Tx) error {
		changed := *tr
		changed.Status = protocol.TurnRunning
		return tx.TurnUpdate(&changed, protocol.TurnRunning) // the turn waits: no row matches
	})
	if !errors.Is(err, store.ErrConflict) {
		t.Fatalf("a compare-and-set expecting another status: %v, want ErrConflict", err)
	}
	if c := s.Counts().Sub(before); c.Rerun != 1 {
		t.Errorf("%d run again, want 1", c.Rerun)
	}
}

// A user's stream the writer does not know yet is read under the writer: a
// run off it that took it for a new one would start it in no epoch.
func TestPreparedRunReadsAnUnknownStreamUnderTheWriter(t *testing.T) {
	_, s := openWAL(t, sqlitestore.Options{})
	appendFor := func(user string) func(tx store.Tx) error {
		return func(tx store.Tx) error { _, err := tx.UpdateAppend(user, "test.note", 1); return err }
	}
	mustWrite(t, s, appendFor("u0"))
	mustWrite(t, s, appendFor("u1"))
	var p0, p1 store.StreamPos
	if err := s.Read(context.Background(), func(tx store.Tx) error {
		var err0, err1 error
		p0, err0 = tx.StreamGet("u0")
		p1, err1 = tx.StreamGet("u1")
		return errors.Join(err0, err1)
	}); err != nil {
		t.Fatal(err)
	}
	if p1.Epoch == "" || p1.Epoch != p0.Epoch || p1.Top != 1 {
		t.Errorf("the second user's stream %+v, want the first's epoch (%+v) at offset 1", p1, p0)
	}
}

// A run off the writer takes a client key it has not used itself for
// unused, and holds only when it inserts a message with it: one that only
// looks the key up runs again under the writer and finds the message, and
// one that inserts with a used key has its insert refused there and runs
// again, finding it too.
func TestPreparedRunTakesAClientKeyForUnusedOnlyWhenItInsertsWithIt(t *testing.T) {
	_, s := openWAL(t, sqlitestore.Options{})
	mustWrite(t, s, func(tx store.Tx) error {
		if _, err := tx.UpdateAppend("u1", "test.note", 1); err != nil { // the writer knows the user's stream
			return err
		}
		return tx.SessionInsert(&protocol.Session{ID: "s1", UserID: "u1", Status: protocol.SessionOpen})
	})
	send := func(id string, seq int64, found *string) func(tx store.Tx) error {
		return func(tx store.Tx) error {
			*found = ""
			if m, err := tx.MessageByClientID("u1", "key"); err == nil {
				*found = m.ID
				return nil
			} else if !errors.Is(err, store.ErrNotFound) {
				return err
			}
			if _, err := tx.UpdateAppend("u1", "message", map[string]string{"id": id}); err != nil {
				return err
			}
			return tx.MessageInsert(&protocol.Message{ID: id, SessionID: "s1", UserID: "u1", Seq: seq, Status: protocol.MessageComplete}, "key")
		}
	}
	var found string
	before := s.Counts()
	mustWrite(t, s, send("m1", 1, &found))
	if c := s.Counts().Sub(before); found != "" || c.Prepared != 1 {
		t.Fatalf("the first send found %q and was prepared %d times; want nothing found, and prepared", found, c.Prepared)
	}
	before = s.Counts()
	mustWrite(t, s, func(tx store.Tx) error {
		found = ""
		if m, err := tx.MessageByClientID("u1", "key"); err == nil {
			found = m.ID
		}
		return nil
	})
	if c := s.Counts().Sub(before); found != "m1" || c.Rerun != 1 {
		t.Errorf("a look-up alone found %q and ran again %d times; want m1, once", found, c.Rerun)
	}
	before = s.Counts()
	mustWrite(t, s, send("m2", 2, &found))
	if c := s.Counts().Sub(before); found != "m1" || c.Rerun != 1 {
		t.Errorf("a second send with the key found %q and ran again %d times; want m1, once", found, c.Rerun)
	}
}

// A new session's highest seqs and inbox, and a new turn's open calls, are
// known from their insert: the next write reads none of them from the
// database, so it holds off the writer.
func TestNewSessionAndTurnAreKnownFromTheirInsert(t *testing.T) {
	_, s := openWAL(t, sqlitestore.Options{})
	mustWrite(t, s, func(tx store.Tx) error { _, err := tx.UpdateAppend("u1", "test.note", 1); return err })
	mustWrite(t, s, func(tx store.Tx) error {
		if err := tx.SessionInsert(&protocol.Session{ID: "s1", UserID: "u1", Status: protocol.SessionOpen}); err != nil {
			return err
		}
		return tx.TurnInsert(&protocol.Turn{ID: "t1", SessionID: "s1", UserID: "u1", Seq: 1, Status: protocol.TurnRunning})
	})
	before := s.Counts()
	mustWrite(t, s, func(tx store.Tx) error {
		turns, err1 := tx.TurnMaxSeq("s1")
		msgs, err2 := tx.MessageMaxSeq("s1")
		open, err3 := tx.RTCListOpenByTurn("t1")
		_, err4 := tx.InboxNext("s1")
		if turns != 1 || msgs != 0 || len(open) != 0 || !errors.Is(err4, store.ErrNotFound) {
			t.Errorf("turn seq %d, message seq %d, open calls %v, inbox %v; want 1, 0, none, none", turns, msgs, open, err4)
		}
		return errors.Join(err1, err2, err3)
	})
	if c := s.Counts().Sub(before); c.Prepared != 1 {
		t.Errorf("%d prepared, want 1: a read went to the database", c.Prepared)
	}
}

// A turn's end reads its streaming messages from the writer's memory, kept
// since the session's insert: after its user message, of that turn, in seq
// order. So the write holds off the writer (and, in tests, each answer is
// checked against the database).
func TestTurnsStreamingMessagesAreKnown(t *testing.T) {
	_, s := openWAL(t, sqlitestore.Options{})
	msg := func(id, turn string, seq int64, status string) *protocol.Message {
		return &protocol.Message{ID: id, SessionID: "s1", TurnID: turn, UserID: "u1", Seq: seq, Role: protocol.RoleAssistant, Status: status}
	}
	tr := &protocol.Turn{ID: "t1", SessionID: "s1", UserID: "u1", Seq: 1, Status: protocol.TurnRunning, UserMessageID: "m2"}
	mustWrite(t, s, func(tx store.Tx) error {
		if _, err := tx.UpdateAppend("u1", "test.note", 1); err != nil {
			return err
		}
		if err := tx.SessionInsert(&protocol.Session{ID: "s1", UserID: "u1", Status: protocol.SessionOpen}); err != nil {
			return err
		}
		for _, m := range []*protocol.Message{msg("m1", "t1", 1, protocol.MessageStreaming), msg("m2", "t1", 2, protocol.MessageComplete)} {
			if err := tx.MessageInsert(m, ""); err != nil {
				return err
			}
		}
		return tx.TurnInsert(tr)
	})
	for _, m := range []*protocol.Message{msg("m3", "t1", 3, protocol.MessageStreaming), msg("m4", "t0", 4, protocol.MessageStreaming),
		msg("m5", "t1", 5, protocol.MessageStreaming)} {
		mustWrite(t, s, func(tx store.Tx) error { return tx.MessageInsert(m, "") })
	}
	done := msg("m3", "t1", 3, protocol.MessageComplete)
	mustWrite(t, s, func(tx store.Tx) error { return tx.MessageUpdate(done, protocol.MessageStreaming) })
	before := s.Counts()
	var got []string
	mustWrite(t, s, func(tx store.Tx) error {
		got = nil
		msgs, err := tx.MessagesStreaming(tr)
		for _, m := range msgs {
			got = append(got, m.ID)
		}
		return err
	})
	if fmt.Sprint(got) != "[m5]" {
		t.Errorf("streaming messages %v, want [m5]: after the user message, of the turn, still streaming", got)
	}
	if c := s.Counts().Sub(before); c.Prepared != 1 {
		t.Errorf("%d prepared, want 1: the turn's end read the database", c.Prepared)
	}
}

// A prepared run that changed something and then failed runs again under
// the writer: its error may rest on a change that would not have taken
// effect (here a compare-and-set on a message that is no longer streaming,
// which the writer's run reports instead).
func TestFailedPreparedRunThatChangedSomethingRunsAgain(t *testing.T) {
	_, s := openWAL(t, sqlitestore.Options{})
	m := &protocol.Message{ID: "m1", SessionID: "s1", UserID: "u1", Seq: 1, Role: protocol.RoleAssistant, Status: protocol.MessageComplete}
	mustWrite(t, s, func(tx store.Tx) error {
		if _, err := tx.UpdateAppend("u1", "test.note", 1); err != nil {
			return err
		}
		if err := tx.SessionInsert(&protocol.Session{ID: "s1", UserID: "u1", Status: protocol.SessionOpen}); err != nil {
			return err
		}
		return tx.MessageInsert(m, "")
	})
	boom := errors.New("failed after the change")
	err := s.Write(context.Background(), func(tx store.Tx) error {
		changed := *m
		changed.Status = protocol.MessageInterrupted
		if err := tx.MessageUpdate(&changed, protocol.MessageStreaming); err != nil {
			return err
		}
		return boom
	})
	if !errors.Is(err, store.ErrConflict) {
		t.Errorf("the write failed with %v, want the conflict of its compare-and-set", err)
	}
}

// A turn's end finds the session's next queued turn in the writer's memory,
// kept since the session's insert, oldest first.
func TestSessionsQueuedTurnsAreKnown(t *testing.T) {
	_, s := openWAL(t, sqlitestore.Options{})
	turn := func(id string, seq int64, status string) *protocol.Turn {
		return &protocol.Turn{ID: id, SessionID: "s1", UserID: "u1", Seq: seq, Status: status}
	}
	mustWrite(t, s, func(tx store.Tx) error {
		if _, err := tx.UpdateAppend("u1", "test.note", 1); err != nil {
			return err
		}
		if err := tx.SessionInsert(&protocol.Session{ID: "s1", UserID: "u1", Status: protocol.SessionOpen}); err != nil {
			return err
		}
		return tx.TurnInsert(turn("t1", 1, protocol.TurnRunning))
	})
	mustWrite(t, s, func(tx store.Tx) error { return tx.TurnInsert(turn("t3", 3, protocol.TurnQueued)) })
	mustWrite(t, s, func(tx store.Tx) error { return tx.TurnInsert(turn("t2", 2, protocol.TurnQueued)) })
	next := func() string {
		var id string
		mustWrite(t, s, func(tx store.Tx) error {
			id = ""
			tr, err := tx.TurnNextQueued("s1")
			if errors.Is(err, store.ErrNotFound) {
				return nil
			}
			id = tr.ID
			return err
		})
		return id
	}
	before := s.Counts()
	if id := next(); id != "t2" {
		t.Errorf("next queued %q, want t2", id)
	}
	mustWrite(t, s, func(tx store.Tx) error {
		return tx.TurnUpdate(turn("t2", 2, protocol.TurnRunning), protocol.TurnQueued)
	})
	if id := next(); id != "t3" {
		t.Errorf("next queued %q, want t3", id)
	}
	if c := s.Counts().Sub(before); c.Prepared != 3 {
		t.Errorf("%d prepared, want 3: a read went to the database", c.Prepared)
	}
}
