package core

import (
	"github.com/rtcagent/rtcagent/internal/protocol"
	"github.com/rtcagent/rtcagent/internal/store"
)

// Each emit function writes an entity and appends its Topic update; the entity
// carries the update's offset. insert selects insert vs compare-and-set update.

func EmitSession(tx store.Tx, s *protocol.Session, typ string) error {
	off, err := tx.NextOffset(s.UserID)
	if err != nil {
		return err
	}
	s.Offset, s.UpdatedAt = off, tx.Now()
	if typ == protocol.UpdSessionCreated {
		s.CreatedAt = s.UpdatedAt
		err = tx.SessionInsert(s)
	} else {
		err = tx.SessionUpdate(s)
	}
	if err != nil {
		return err
	}
	_, err = tx.UpdateAppend(s.UserID, typ, s)
	return err
}

// EmitTurn inserts t when expect is "" and otherwise updates it from status expect.
func EmitTurn(tx store.Tx, t *protocol.Turn, expect string) error {
	off, err := tx.NextOffset(t.UserID)
	if err != nil {
		return err
	}
	t.Offset, t.UpdatedAt = off, tx.Now()
	typ := protocol.UpdTurnUpdated
	if expect == "" {
		typ, t.CreatedAt = protocol.UpdTurnCreated, t.UpdatedAt
		err = tx.TurnInsert(t)
	} else {
		err = tx.TurnUpdate(t, expect)
	}
	if err != nil {
		return err
	}
	_, err = tx.UpdateAppend(t.UserID, typ, t)
	return err
}

// EmitMessage inserts m when expect is "" and otherwise updates it from status expect.
func EmitMessage(tx store.Tx, m *protocol.Message, expect, clientID string) error {
	off, err := tx.NextOffset(m.UserID)
	if err != nil {
		return err
	}
	m.Offset, m.UpdatedAt = off, tx.Now()
	typ := protocol.UpdMessageUpdated
	if expect == "" {
		typ, m.CreatedAt = protocol.UpdMessageCreated, m.UpdatedAt
		err = tx.MessageInsert(m, clientID)
	} else {
		err = tx.MessageUpdate(m, expect)
	}
	if err != nil {
		return err
	}
	_, err = tx.UpdateAppend(m.UserID, typ, m)
	return err
}

// insertCopy inserts r, a copy of an RTC of another session (a fork), with
// its Topic update. A copy carries no audit record: the call was audited in
// its source session; nor its MCP task, which was the source call's.
func insertCopy(tx store.Tx, r *protocol.RTC) error {
	off, err := tx.NextOffset(r.UserID)
	if err != nil {
		return err
	}
	r.Offset, r.UpdatedAt, r.Audit, r.TaskID = off, tx.Now(), nil, ""
	r.CreatedAt = r.UpdatedAt
	if err := tx.RTCInsert(r); err != nil {
		return err
	}
	_, err = tx.UpdateAppend(r.UserID, protocol.UpdRTCUpdated, r)
	return err
}
