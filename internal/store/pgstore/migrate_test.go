package pgstore_test

import (
	"encoding/json"
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
