package sqlitestore

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/rtcagent/rtcagent/internal/protocol"
	"github.com/rtcagent/rtcagent/internal/store"
)

// A database written by the schema of migration 004 opens with every later
// migration applied and its data intact: streams go on from their offsets,
// pruned and reset streams keep their floors, and rows keep their order.
func TestMigrateFrom004WithData(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "old.db")
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=journal_mode(WAL)")
	if err != nil {
		t.Fatal(err)
	}
	if err := migrateTo(ctx, db, 4); err != nil {
		t.Fatal(err)
	}
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	now := t0.Add(time.Hour)
	exec := func(q string, args ...any) {
		t.Helper()
		if _, err := db.ExecContext(ctx, q, args...); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	upd := func(user, epoch string, off int64, at time.Time) {
		payload := fmt.Sprintf(`{"offset":%d,"epoch":%q,"type":"turn.updated","data":{"i":%d}}`, off, epoch, off)
		exec(`INSERT INTO updates (user_id, offset, payload, created_at) VALUES (?, ?, ?, ?)`, user, off, payload, at.UnixMilli())
	}
	exec(`INSERT INTO meta (key, value) VALUES ('epoch', 'e0')`)
	// a: offsets 1-5, none pruned. b: 1-6 pruned to 4-6. c: reset at 7 (no rows).
	exec(`INSERT INTO user_streams (user_id, epoch, top, floor) VALUES ('a', 'e0', 5, 0), ('b', 'e0', 6, 3), ('c', 'e1', 7, 7)`)
	for i := int64(1); i <= 5; i++ {
		upd("a", "e0", i, t0.Add(time.Duration(i)*time.Minute))
	}
	for i := int64(4); i <= 6; i++ {
		upd("b", "e0", i, t0.Add(time.Duration(i)*time.Minute))
	}
	for i := 1; i <= 3; i++ {
		s := protocol.Session{ID: fmt.Sprintf("s%d", i), UserID: "a", DeviceID: "d", Title: "t", WorkMode: "auto", Status: "open"}
		exec(`INSERT INTO sessions (id, user_id, data) VALUES (?, ?, ?)`, s.ID, s.UserID, mustJSON(t, s))
		r := protocol.RTC{ID: fmt.Sprintf("r%d", i), SessionID: "s1", TurnID: "t1", UserID: "a", Seq: i, Status: protocol.RTCPending,
			ToolName: "ls", CreatedAt: t0, Output: json.RawMessage(`{"text":"PK\u0000 \ud83d","n":1.50}`)}
		exec(`INSERT INTO rtcs (id, session_id, turn_id, user_id, seq, status, open, deadline_at, data) VALUES (?, ?, ?, ?, ?, ?, 1, NULL, ?)`,
			r.ID, r.SessionID, r.TurnID, r.UserID, r.Seq, r.Status, mustJSON(t, r))
		// Records of the audit table (before 011), a copy of the call with
		// what only the record held: the work mode, the decision, the times.
		a := protocol.AuditRecord{RTCID: r.ID, UserID: "a", SessionID: "s1", ToolName: "ls", CreatedAt: t0, WorkMode: "auto",
			Status: r.Status, DeliveredAt: &t0, Decision: protocol.AuditDecision{Outcome: protocol.DecisionAllowed, By: protocol.DecidedByWorkMode}}
		exec(`INSERT INTO audit (rtc_id, user_id, session_id, created_at, ended_at, data) VALUES (?, ?, ?, ?, NULL, ?)`,
			a.RTCID, a.UserID, a.SessionID, t0.UnixMilli(), mustJSON(t, a))
	}
	exec(`INSERT INTO inbox (session_id, kind, turn_id, created_at) VALUES ('s1', 'turn.start', 't1', ?), ('s1', 'turn.resume', 't1', ?)`, t0.UnixMilli(), t0.UnixMilli())
	// A waiting turn with its checkpoint in the table of its own (before 008).
	tw := protocol.Turn{ID: "t1", SessionID: "s1", UserID: "a", Seq: 1, Status: protocol.TurnWaiting}
	exec(`INSERT INTO turns (id, session_id, seq, status, data) VALUES (?, ?, ?, ?, ?)`, tw.ID, tw.SessionID, tw.Seq, tw.Status, mustJSON(t, tw))
	exec(`INSERT INTO checkpoints (turn_id, data, expires_at) VALUES ('t1', '{"version":1,"step":2}', ?)`, now.Add(time.Hour).UnixMilli())
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}

	s, err := Open(ctx, path, Options{Now: func() time.Time { return now }})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	want := map[string]store.StreamPos{"a": {Epoch: "e0", Top: 5, Floor: 0}, "b": {Epoch: "e0", Top: 6, Floor: 3}, "c": {Epoch: "e1", Top: 7, Floor: 7}}
	err = s.Read(ctx, func(tx store.Tx) error {
		for user, w := range want {
			list, pos, err := tx.UpdateList(user, 0, 100, 0)
			if err != nil {
				return err
			}
			if pos != w || int64(len(list)) != w.Top-w.Floor || (len(list) > 0 && list[0].Offset != w.Floor+1) {
				return fmt.Errorf("stream %s: %+v with %d updates, want %+v", user, pos, len(list), w)
			}
		}
		// Updates of one change each, in the form of one update per commit.
		list, _, err := tx.UpdateList("a", 1, 1, 0)
		if err != nil || len(list) != 1 || len(list[0].Changes) != 1 || list[0].Offset != 2 || list[0].Epoch != "e0" ||
			list[0].Changes[0].Type != protocol.UpdTurnUpdated || string(list[0].Changes[0].Data) != `{"i":2}` {
			return fmt.Errorf("an update from before 008: %+v %v", list, err)
		}
		tr, err := tx.TurnGet("t1")
		if err != nil || tr.Checkpoint == nil || !tr.Checkpoint.ExpiresAt.Equal(now.Add(time.Hour)) {
			return fmt.Errorf("the turn's checkpoint after 008: %+v %v", tr, err)
		}
		ss, err := tx.SessionList("a", "", 10)
		if err != nil || len(ss) != 3 || ss[0].ID != "s3" || ss[2].ID != "s1" {
			return fmt.Errorf("sessions %v %v", ss, err)
		}
		rs, err := tx.RTCListBySession("s1", "r1", 10)
		if err != nil || len(rs) != 2 || rs[0].ID != "r2" {
			return fmt.Errorf("rtcs after r1 %v %v", rs, err)
		}
		it, err := tx.InboxNext("s1")
		if err != nil || it.Kind != "turn.start" {
			return fmt.Errorf("inbox %+v %v", it, err)
		}
		as, err := tx.AuditList(store.AuditQuery{AfterRTC: "r1"})
		if err != nil || len(as) != 2 || as[0].RTCID != "r2" {
			return fmt.Errorf("audit after r1 %v %v", as, err)
		}
		// The record's own fields moved into its call's row (011).
		a, err := tx.AuditGet("r2")
		if err != nil || a.WorkMode != "auto" || string(a.Output) != `{"text":"PK\u0000 \ud83d","n":1.50}` ||
			a.Decision.Outcome != protocol.DecisionAllowed || a.DeliveredAt == nil ||
			!a.DeliveredAt.Equal(t0) || !a.CreatedAt.Equal(t0) || a.ToolName != "ls" || a.Status != protocol.RTCPending {
			return fmt.Errorf("audit record of r2 after 011: %+v %v", a, err)
		}
		as, err = tx.AuditList(store.AuditQuery{UserID: "a", Since: t0})
		if err != nil || len(as) != 3 {
			return fmt.Errorf("audit of a since t0 after 011: %v %v", as, err)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	// Appends go on from each stream's top; new rows sort after the old ones.
	var item store.InboxItem
	err = s.Write(ctx, func(tx store.Tx) error {
		for user, w := range want {
			u, err := tx.UpdateAppend(user, protocol.UpdTurnUpdated, nil)
			if err != nil {
				return err
			}
			if u.Offset != w.Top+1 || u.Epoch != w.Epoch {
				return fmt.Errorf("append to %s: %+v, want offset %d", user, u, w.Top+1)
			}
		}
		if err := tx.SessionInsert(&protocol.Session{ID: "s4", UserID: "a", Status: "open"}); err != nil {
			return err
		}
		if err := tx.RTCInsert(&protocol.RTC{ID: "r4", SessionID: "s1", TurnID: "t1", UserID: "a", Seq: 4, Status: protocol.RTCQueued}); err != nil {
			return err
		}
		item = store.InboxItem{SessionID: "s3", Kind: "turn.start", TurnID: "t3"}
		return tx.InboxInsert(&item)
	})
	if err != nil {
		t.Fatal(err)
	}
	if item.ID <= 2 {
		t.Fatalf("new inbox item id %d, want above the ids of the items there (1, 2)", item.ID)
	}
	err = s.Read(ctx, func(tx store.Tx) error {
		ss, err := tx.SessionList("a", "", 1)
		if err != nil || len(ss) != 1 || ss[0].ID != "s4" {
			return fmt.Errorf("newest session %v %v", ss, err)
		}
		rs, err := tx.RTCListBySession("s1", "r3", 10)
		if err != nil || len(rs) != 1 || rs[0].ID != "r4" {
			return fmt.Errorf("rtcs after r3 %v %v", rs, err)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
