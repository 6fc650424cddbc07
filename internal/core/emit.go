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

// EmitRTC inserts r when expect is "" and otherwise updates it from status expect,
// and brings its audit record up to date. A new RTC arrives as its first
// rtc.updated.
func EmitRTC(tx store.Tx, r *protocol.RTC, expect string) error {
	return emitRTC(tx, r, expect, true, nil)
}

// emitRTCBy is EmitRTC for a change a person made through the API.
func emitRTCBy(tx store.Tx, r *protocol.RTC, expect string, act *actor) error {
	return emitRTC(tx, r, expect, true, act)
}

// writeRTC is EmitRTC without the audit record (copies of audited calls).
func writeRTC(tx store.Tx, r *protocol.RTC, expect string) error {
	return emitRTC(tx, r, expect, false, nil)
}

// emitRTC writes r and its Topic change and, when audited, its audit record,
// whose state r then carries (so the next change writes the record without
// reading it).
func emitRTC(tx store.Tx, r *protocol.RTC, expect string, audited bool, act *actor) error {
	off, err := tx.NextOffset(r.UserID)
	if err != nil {
		return err
	}
	r.Offset, r.UpdatedAt = off, tx.Now()
	if expect == "" {
		r.CreatedAt = r.UpdatedAt
	}
	var rec *protocol.AuditRecord
	if audited {
		if rec, err = auditRecord(tx, r, expect, act); err != nil {
			return err
		}
		r.Audit = rec.State()
	} else {
		r.Audit = nil // a copy carries no record of its own
	}
	if expect == "" {
		err = tx.RTCInsert(r)
	} else {
		err = tx.RTCUpdate(r, expect)
	}
	if err != nil {
		return err
	}
	if _, err = tx.UpdateAppend(r.UserID, protocol.UpdRTCUpdated, r); err != nil {
		return err
	}
	if rec == nil {
		return nil
	}
	return tx.AuditPut(rec)
}
