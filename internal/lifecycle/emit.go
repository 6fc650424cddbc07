package lifecycle

import (
	"github.com/rtcagent/rtcagent/internal/protocol"
	"github.com/rtcagent/rtcagent/internal/store"
)

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

// writeRTC is EmitRTC for a change that is no decision and no outcome (a
// server call's progress): the state of its audit record r carries stays as
// it is.
func writeRTC(tx store.Tx, r *protocol.RTC, expect string) error {
	return emitRTC(tx, r, expect, false, nil)
}

// emitRTC writes r and its Topic change; when audited, r first takes the new
// state of its audit record. The record is the RTC's own row (r with the
// state it carries, store.Audit): written with the call, never apart.
func emitRTC(tx store.Tx, r *protocol.RTC, expect string, audited bool, act *actor) error {
	off, err := tx.NextOffset(r.UserID)
	if err != nil {
		return err
	}
	r.Offset, r.UpdatedAt = off, tx.Now()
	if expect == "" {
		r.CreatedAt = r.UpdatedAt
	}
	if audited {
		if r.Audit, err = auditState(tx, r, expect, act); err != nil {
			return err
		}
	}
	if expect == "" {
		err = tx.RTCInsert(r)
	} else {
		err = tx.RTCUpdate(r, expect)
	}
	if err != nil {
		return err
	}
	_, err = tx.UpdateAppend(r.UserID, protocol.UpdRTCUpdated, r)
	return err
}
