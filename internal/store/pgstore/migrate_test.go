package pgstore_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/rtcagent/rtcagent/internal/protocol"
	"github.com/rtcagent/rtcagent/internal/store"
	"github.com/rtcagent/rtcagent/internal/store/pgstore"
)

// A database of the schema before migration 004 opens with its Topic updates
// in the form of one update per commit and its waiting turns carrying their
// checkpoints.
func TestMigrateFrom003WithData(t *testing.T) {
	url := serverURL(t)
	schema := freshSchema(t, url)
	if err := pgstore.MigrateTo(ctx, url, schema, 3); err != nil {
		t.Fatal(err)
	}
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	expires := time.Now().Add(time.Hour).UTC().Truncate(time.Microsecond)
	turn, _ := json.Marshal(protocol.Turn{ID: "t1", SessionID: "s1", UserID: "u", Seq: 1, Status: protocol.TurnWaiting})
	id := pgx.Identifier{schema}.Sanitize()
	for _, q := range []struct {
		sql  string
		args []any
	}{
		{`INSERT INTO ` + id + `.user_streams (user_id, epoch, top, floor) VALUES ('u', 'e0', 2, 0)`, nil},
		{`INSERT INTO ` + id + `.updates (user_id, off, payload, created_at) VALUES ('u', 1, $1, now()), ('u', 2, $2, now())`,
			[]any{`{"offset":1,"epoch":"e0","type":"turn.updated","data":{"z":1.50,"i":1}}`, `{"offset":2,"epoch":"e0","type":"rtc.updated","data":{"id":"r"}}`}},
		{`INSERT INTO ` + id + `.turns (id, session_id, seq, status, data) VALUES ('t1', 's1', 1, 'waiting', $1)`, []any{string(turn)}},
		{`INSERT INTO ` + id + `.checkpoints (turn_id, data, expires_at) VALUES ('t1', '{"version":1,"step":2}', $1)`, []any{expires}},
	} {
		if _, err := conn.Exec(ctx, q.sql, q.args...); err != nil {
			t.Fatalf("%s: %v", q.sql, err)
		}
	}
	s := openStore(t, url, schema, nil)
	err = s.Read(ctx, func(tx store.Tx) error {
		list, pos, err := tx.UpdateList("u", 0, 10, 0)
		if err != nil || len(list) != 2 || pos.Top != 2 {
			t.Fatalf("updates %+v top %d: %v", list, pos.Top, err)
		}
		c := list[0].Changes
		if list[0].Offset != 1 || list[0].Epoch != "e0" || len(c) != 1 || c[0].Type != protocol.UpdTurnUpdated || string(c[0].Data) != `{"z":1.50,"i":1}` {
			t.Fatalf("an update from before 004: %+v", list[0])
		}
		tr, err := tx.TurnGet("t1")
		if err != nil || tr.Checkpoint == nil || !tr.Checkpoint.ExpiresAt.Equal(expires) ||
			tr.Status != protocol.TurnWaiting || tr.SessionID != "s1" {
			t.Fatalf("the turn after 004: %+v %v", tr, err)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// A database of the schema before migration 009 opens with each audit record
// in its call's row: the state only the record held moves into the call's
// data unless the call carries it already, and a call without a record (pruned)
// stays without one.
func TestMigrateAuditIntoRTCs(t *testing.T) {
	url := serverURL(t)
	schema := freshSchema(t, url)
	if err := pgstore.MigrateTo(ctx, url, schema, 8); err != nil {
		t.Fatal(err)
	}
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	id := pgx.Identifier{schema}.Sanitize()
	exec := func(q string, args ...any) {
		t.Helper()
		if _, err := conn.Exec(ctx, q, args...); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	// The call's bytes as the model saw them: key order, a NUL and a lone
	// surrogate (which jsonb refuses), a number as written.
	args := json.RawMessage(`{"path":"a.zip","n":1.50,"append":true}`)
	output := json.RawMessage(`{"text":"PK\u0003\u0000 \ud83d"}`)
	for i, r := range []protocol.RTC{
		{ID: "old", Status: protocol.RTCCompleted, Arguments: args, Output: output},
		{ID: "carries", Status: protocol.RTCPending, Audit: &protocol.AuditState{WorkMode: "edit"}},
		{ID: "pruned", Status: protocol.RTCCompleted},
	} {
		r.SessionID, r.TurnID, r.UserID, r.Seq, r.ToolName, r.CreatedAt = "s1", "t1", "u", i+1, "ls", t0
		data, _ := r.StoredJSON()
		exec(`INSERT INTO `+id+`.rtcs (id, session_id, turn_id, user_id, seq, status, open, data) VALUES ($1, 's1', 't1', 'u', $2, $3, $4, $5)`,
			r.ID, r.Seq, r.Status, !protocol.RTCTerminal(r.Status), string(data))
	}
	end := t0.Add(time.Minute)
	for _, a := range []protocol.AuditRecord{
		{RTCID: "old", WorkMode: "auto", Status: protocol.RTCCompleted, EndedAt: &end,
			Decision: protocol.AuditDecision{Outcome: protocol.DecisionDenied, By: protocol.DecidedByUser, Reason: "no"}},
		{RTCID: "carries", WorkMode: "plan", Status: protocol.RTCPending},
	} {
		a.UserID, a.SessionID, a.ToolName, a.CreatedAt = "u", "s1", "ls", t0
		data, _ := json.Marshal(a)
		exec(`INSERT INTO `+id+`.audit (rtc_id, user_id, session_id, created_at, ended_at, data) VALUES ($1, 'u', 's1', $2, $3, $4)`,
			a.RTCID, a.CreatedAt, a.EndedAt, string(data))
	}
	s := openStore(t, url, schema, nil)
	err = s.Read(ctx, func(tx store.Tx) error {
		list, err := tx.AuditList(store.AuditQuery{UserID: "u"})
		if err != nil || len(list) != 2 || list[0].RTCID != "old" || list[1].RTCID != "carries" {
			t.Fatalf("records %+v: %v", list, err)
		}
		old := list[0]
		if string(old.Arguments) != string(args) || string(old.Output) != string(output) {
			t.Fatalf("the call's bytes changed: %s %s", old.Arguments, old.Output)
		}
		if old.WorkMode != "auto" || old.Decision.Reason != "no" || old.EndedAt == nil || !old.EndedAt.Equal(end) ||
			old.ToolName != "ls" || old.Status != protocol.RTCCompleted || !old.CreatedAt.Equal(t0) {
			t.Fatalf("the record moved into its call: %+v", old)
		}
		if list[1].WorkMode != "edit" {
			t.Fatalf("a call that carried its record's state took the table's: %+v", list[1])
		}
		if _, err := tx.AuditGet("pruned"); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("a call whose record was pruned: %v", err)
		}
		if list, err := tx.AuditList(store.AuditQuery{Since: t0}); err != nil || len(list) != 2 {
			t.Fatalf("records since t0: %+v %v", list, err)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	// A node of the earlier release, still running, inserts a call as it
	// did and writes its record to the audit table: both work, and the call
	// is listed.
	exec(`INSERT INTO `+id+`.rtcs (id, session_id, turn_id, user_id, seq, status, open, data) VALUES ('older', 's1', 't1', 'u', 9, 'pending', true, $1)`,
		`{"id":"older","user_id":"u","session_id":"s1","turn_id":"t1","tool_name":"ls","created_at":"2026-01-01T00:00:00Z","audit_state":{"work_mode":"auto"}}`)
	exec(`INSERT INTO ` + id + `.audit (rtc_id, user_id, session_id, created_at, ended_at, data) VALUES ('older', 'u', 's1', now(), NULL, '{}')`)
	if err := s.Read(ctx, func(tx store.Tx) error {
		a, err := tx.AuditGet("older")
		if err == nil && a.WorkMode != "auto" {
			err = fmt.Errorf("record %+v", a)
		}
		return err
	}); err != nil {
		t.Fatalf("a call of a node of the earlier release: %v", err)
	}
	// Pruning after the migration drops the ended record only.
	err = s.Write(ctx, func(tx store.Tx) error {
		n, err := tx.AuditPrune(end.Add(time.Second))
		if err == nil && n != 1 {
			t.Fatalf("pruned %d, want 1", n)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}
