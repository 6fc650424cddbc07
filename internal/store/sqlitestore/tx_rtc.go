package sqlitestore

import (
	"database/sql"
	"time"

	"github.com/rtcagent/rtcagent/internal/protocol"
	"github.com/rtcagent/rtcagent/internal/store"
)

func (t *tx) RTCListOpenByUser(userID string, limit int) ([]protocol.RTC, error) {
	return listJSON[protocol.RTC](t, `SELECT data FROM rtcs WHERE user_id = ? AND open = 1 ORDER BY ord LIMIT ?`, userID, limit)
}

func (t *tx) RTCListExpired(now time.Time, limit int) ([]protocol.RTC, error) {
	return listJSON[protocol.RTC](t, `SELECT data FROM rtcs WHERE open = 1 AND deadline_at IS NOT NULL AND deadline_at <= ? ORDER BY deadline_at LIMIT ?`, ms(now), limit)
}

// An RTC's change sets only the columns it can change: SQLite rewrites every
// index entry of a row whose indexed or index-filtering columns are set,
// changed or not. A call not yet ended is open, not ended and, when it
// carries its record, audited (retention prunes only ended calls): a change
// from an open status leaves open and ended_at alone unless it ends the call,
// and audited alone when it is what the change would make it. A row that is
// not so (a record pruned, an ended call changed) is updated whole.
const (
	rtcUpdateOpen  = `UPDATE rtcs SET status = $2, deadline_at = $4, created_at = $6, data = $8 WHERE id = $1 AND status = $9 AND audited = $5`
	rtcUpdateEnd   = `UPDATE rtcs SET status = $2, open = $3, deadline_at = $4, created_at = $6, ended_at = $7, data = $8 WHERE id = $1 AND status = $9 AND audited = $5`
	rtcUpdateWhole = `UPDATE rtcs SET ` + store.SQLRTCUpdateSet + ` WHERE id = $1 AND status = $9`
)

// RTCGet reads an RTC once per write transaction, without a statement when
// the writer knows it (knownRows).
func (t *tx) RTCGet(id string) (*protocol.RTC, error) {
	return getRow[protocol.RTC](t, "rtc", id, store.SQLRTCGet)
}

func (t *tx) RTCUpdate(r *protocol.RTC, expectStatus string) error {
	args, data, sent := store.RTCUpdateArgs(r, expectStatus, t.D.Time)
	res, err := t.updateRTC(r, expectStatus, args)
	if err = t.casResult(res, err, "rtcs", r.ID); err == nil {
		t.Audits = store.WithAudit(t.Audits, r)
		t.Batch.Sent(r, sent)
		t.wrote("rtc", r.ID, data, r)
		t.openChanged(r)
	}
	return err
}

func (t *tx) updateRTC(r *protocol.RTC, expectStatus string, args []any) (sql.Result, error) {
	if !protocol.RTCTerminal(expectStatus) {
		q := rtcUpdateOpen
		if protocol.RTCTerminal(r.Status) {
			q = rtcUpdateEnd
		}
		res, err := t.exec(q, args...)
		if err != nil {
			return nil, err
		}
		if n, _ := res.RowsAffected(); n == 1 {
			return res, nil
		}
	}
	return t.exec(rtcUpdateWhole, args...)
}
