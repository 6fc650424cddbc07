package sqlitestore_test

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rtcagent/rtcagent/internal/protocol"
	"github.com/rtcagent/rtcagent/internal/store"
)

// A write transaction finds a session's highest message and turn seqs and a
// turn's open calls without a statement once the writer read or wrote them:
// kept in step with its inserts and its calls' changes, as they were after a
// write that rolled back, and, in tests, checked against the database.
func TestWriterKnowsSeqsAndOpenCalls(t *testing.T) {
	path, _, write := writerStore(t)
	now := time.Now().UTC()
	rtc := func(id string, seq int) *protocol.RTC {
		return &protocol.RTC{ID: id, SessionID: "s1", TurnID: "t1", UserID: "u1", Seq: seq, Status: protocol.RTCPending, ToolName: "ls", CreatedAt: now}
	}
	msg := func(id string, seq int64) *protocol.Message {
		return &protocol.Message{ID: id, SessionID: "s1", TurnID: "t1", UserID: "u1", Seq: seq, Role: "assistant", Status: protocol.MessageComplete}
	}
	if err := write(func(tx store.Tx) error {
		if err := tx.SessionInsert(&protocol.Session{ID: "s1", UserID: "u1"}); err != nil {
			return err
		}
		if err := tx.TurnInsert(&protocol.Turn{ID: "t1", SessionID: "s1", UserID: "u1", Seq: 1, Status: protocol.TurnRunning}); err != nil {
			return err
		}
		if err := tx.MessageInsert(msg("m1", 1), ""); err != nil {
			return err
		}
		if err := tx.RTCInsert(rtc("r1", 1)); err != nil {
			return err
		}
		return tx.RTCInsert(rtc("r2", 2))
	}); err != nil {
		t.Fatal(err)
	}
	// What the next writes know: read once here.
	want := func(msgs, turns int64, open ...string) func(tx store.Tx) error {
		return func(tx store.Tx) error {
			m, err := tx.MessageMaxSeq("s1")
			if err != nil {
				return err
			}
			tu, err := tx.TurnMaxSeq("s1")
			if err != nil {
				return err
			}
			list, err := tx.RTCListOpenByTurn("t1")
			if err != nil {
				return err
			}
			var ids []string
			for _, r := range list {
				ids = append(ids, r.ID)
			}
			if m != msgs || tu != turns || !slices.Equal(ids, open) {
				return fmt.Errorf("seqs %d, %d and open calls %v; want %d, %d and %v", m, tu, ids, msgs, turns, open)
			}
			return nil
		}
	}
	if err := write(want(1, 1, "r1", "r2")); err != nil {
		t.Fatal(err)
	}

	before := store.ReadTableCounts()
	if err := write(func(tx store.Tx) error {
		if err := tx.MessageInsert(msg("m2", 2), ""); err != nil {
			return err
		}
		if err := tx.TurnInsert(&protocol.Turn{ID: "t2", SessionID: "s1", UserID: "u1", Seq: 2, Status: protocol.TurnQueued}); err != nil {
			return err
		}
		if err := tx.RTCInsert(rtc("r4", 4)); err != nil {
			return err
		}
		if err := tx.RTCInsert(rtc("r3", 3)); err != nil {
			return err
		}
		r, err := tx.RTCGet("r1")
		if err != nil {
			return err
		}
		r.Status = protocol.RTCCompleted
		if err := tx.RTCUpdate(r, protocol.RTCPending); err != nil {
			return err
		}
		return want(2, 2, "r2", "r3", "r4")(tx) // the transaction's own changes
	}); err != nil {
		t.Fatal(err)
	}
	if err := write(want(2, 2, "r2", "r3", "r4")); err != nil {
		t.Fatal(err)
	}
	reads := store.ReadTableCounts().Sub(before)
	for _, k := range []string{"select messages", "select turns", "select rtcs"} {
		if reads[k] != 0 {
			t.Errorf("%d statements of %q for what the writer knows", reads[k], k)
		}
	}

	// A write that rolls back leaves them as they were.
	failed := errors.New("rolled back")
	if err := write(func(tx store.Tx) error {
		if err := tx.MessageInsert(msg("m3", 3), ""); err != nil {
			return err
		}
		if err := tx.RTCInsert(rtc("r5", 5)); err != nil {
			return err
		}
		r, err := tx.RTCGet("r2")
		if err != nil {
			return err
		}
		r.Status = protocol.RTCFailed
		if err := tx.RTCUpdate(r, protocol.RTCPending); err != nil {
			return err
		}
		return failed
	}); !errors.Is(err, failed) {
		t.Fatal(err)
	}
	if err := write(want(2, 2, "r2", "r3", "r4")); err != nil {
		t.Fatal(err)
	}

	// A change the writer did not make is caught when it is next read.
	changeBehind(t, path, `UPDATE rtcs SET open = 0 WHERE id = 'r3'`)
	if err := write(want(2, 2, "r2", "r4")); err == nil || !strings.Contains(err.Error(), "the writer knows the open calls of t1") {
		t.Fatalf("open calls changed behind the writer's back: %v", err)
	}
	changeBehind(t, path, `UPDATE messages SET seq = 7 WHERE id = 'm2'`)
	if err := write(func(tx store.Tx) error {
		_, err := tx.MessageMaxSeq("s1")
		return err
	}); err == nil || !strings.Contains(err.Error(), "the writer knows the highest seq of messages/s1") {
		t.Fatalf("a seq changed behind the writer's back: %v", err)
	}
}
