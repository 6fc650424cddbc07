package sqlitestore

import (
	"context"
	"testing"

	"github.com/rtcagent/rtcagent/internal/protocol"
	"github.com/rtcagent/rtcagent/internal/store"
)

// The Topic change of a call or a turn the writer wrote carries the very
// value the writer keeps as that row decoded, not a copy of its own; a
// change of a row the writer does not keep (a message) carries a copy.
func TestChangeCarriesTheRowTheWriterKeeps(t *testing.T) {
	ctx := context.Background()
	s := openTemp(t)
	values := map[string]protocol.Keyed{}
	s.SetCommitHook(func(c store.Commit) {
		for _, u := range c.Updates {
			for _, ch := range u.Changes {
				values[ch.Value.TopicKey()] = ch.Value
			}
		}
	})
	r := &protocol.RTC{ID: "r1", SessionID: "s1", TurnID: "t1", UserID: "u1", Seq: 1, Status: protocol.RTCPending,
		ToolName: "ls", Audit: &protocol.AuditState{WorkMode: "edit"}}
	tr := &protocol.Turn{ID: "t1", SessionID: "s1", UserID: "u1", Seq: 1, Status: protocol.TurnRunning}
	m := &protocol.Message{ID: "m1", SessionID: "s1", UserID: "u1", Seq: 1, Role: protocol.RoleUser, Status: protocol.MessageComplete}
	emit := func(tx store.Tx, typ string, v protocol.Keyed) error {
		_, err := tx.UpdateAppend("u1", typ, v)
		return err
	}
	check := func(when string) {
		t.Helper()
		for _, k := range []store.RowKey{{Kind: "rtc", ID: "r1"}, {Kind: "turn", ID: "t1"}} {
			var kept any
			if kr := s.rows.m[k]; kr != nil {
				kept = kr.Value
			}
			if got := values[k.Kind+"/"+k.ID]; kept == nil || got != kept {
				t.Errorf("%s: the change of %s carries %p, the writer keeps %p", when, k, got, kept)
			}
		}
		if values["message/m1"] == protocol.Keyed(m) {
			t.Errorf("%s: the message's change carries the writer's own value", when)
		}
	}
	if err := s.Write(ctx, func(tx store.Tx) error {
		if err := tx.TurnInsert(tr); err != nil {
			return err
		}
		if err := emit(tx, protocol.UpdTurnCreated, tr); err != nil {
			return err
		}
		if err := tx.RTCInsert(r); err != nil {
			return err
		}
		if err := emit(tx, protocol.UpdRTCUpdated, r); err != nil {
			return err
		}
		if err := tx.MessageInsert(m, ""); err != nil {
			return err
		}
		return emit(tx, protocol.UpdMessageCreated, m)
	}); err != nil {
		t.Fatal(err)
	}
	check("inserted")
	if err := s.Write(ctx, func(tx store.Tx) error {
		r.Status = protocol.RTCCompleted
		if err := tx.RTCUpdate(r, protocol.RTCPending); err != nil {
			return err
		}
		if err := emit(tx, protocol.UpdRTCUpdated, r); err != nil {
			return err
		}
		tr.Status = protocol.TurnCompleted
		if err := tx.TurnUpdate(tr, protocol.TurnRunning); err != nil {
			return err
		}
		return emit(tx, protocol.UpdTurnUpdated, tr)
	}); err != nil {
		t.Fatal(err)
	}
	check("updated")
}

// The writer keeps a session, turn or call decoded once it was written or
// decoded: by a write that inserted or changed it, one that read it from the
// database, and one that decoded the writer's row off the writer (a
// prepared run), so the next read decodes nothing.
func TestRowsAreKeptDecoded(t *testing.T) {
	ctx := context.Background()
	s := openTemp(t)
	key := store.RowKey{Kind: "session", ID: "s1"}
	check := func(when string) {
		t.Helper()
		kr := s.rows.m[key]
		if kr == nil || kr.Value == nil {
			t.Fatalf("%s: the writer keeps the session undecoded", when)
		}
		if err := store.CheckDecoded(key.Kind, key.ID, kr.Data, kr.Value.(*protocol.Session)); err != nil {
			t.Fatalf("%s: %v", when, err)
		}
	}
	read := func(tx store.Tx) error {
		_, err := tx.SessionGet("s1")
		return err
	}
	sess := &protocol.Session{ID: "s1", UserID: "u1", Title: "first"}
	if err := s.Write(ctx, func(tx store.Tx) error { return tx.SessionInsert(sess) }); err != nil {
		t.Fatal(err)
	}
	check("inserted")
	if err := s.Write(ctx, func(tx store.Tx) error {
		changed := *sess
		changed.Title = "second"
		return tx.SessionUpdate(&changed)
	}); err != nil {
		t.Fatal(err)
	}
	check("updated")
	s.forget()
	if err := s.Write(ctx, read); err != nil {
		t.Fatal(err)
	}
	check("read from the database")
	s.rows.m[key].Value = nil
	before := s.Counts()
	if err := s.Write(ctx, read); err != nil {
		t.Fatal(err)
	}
	if s.Counts().Prepared == before.Prepared {
		t.Fatal("the read did not run off the writer")
	}
	check("decoded off the writer")
}
