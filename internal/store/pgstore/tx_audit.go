package pgstore

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/rtcagent/rtcagent/internal/protocol"
	"github.com/rtcagent/rtcagent/internal/store"
)

func (t *tx) AuditPut(a *protocol.AuditRecord) error {
	data, err := json.Marshal(a)
	if err != nil {
		return err
	}
	// Sent with the next statement (pipeline.go): nothing here needs its answer.
	args := []any{a.RTCID, a.UserID, a.SessionID, a.CreatedAt, a.EndedAt, string(data)}
	if !t.joinRTCWrite(args) {
		if err := t.later(nil, upsertAudit(1), args...); err != nil {
			return fmt.Errorf("write audit record: %w", err)
		}
	}
	t.audits = append(t.audits, a)
	return nil
}

// rtcWrite is an RTC's insert or compare-and-set waiting at pending[at].
type rtcWrite struct {
	id     string
	at     int
	update bool
}

// joinRTCWrite puts the audit record of args into the statement that writes
// its RTC, when that is the last one waiting (as every transition writes
// them): one statement for the RTC and its record, and a failed
// compare-and-set of the RTC undoes the record with it.
func (t *tx) joinRTCWrite(args []any) bool {
	w := t.rtcWrite
	t.rtcWrite = rtcWrite{}
	if w.id == "" || w.id != args[0] || w.at != len(t.pending)-1 || t.failed != nil {
		return false
	}
	d := &t.pending[w.at]
	n := len(d.args)
	if w.update {
		d.sql = casSQL("rtcs", updateRTC, n, `, a AS (`+upsertAudit(n+1)+`)`)
	} else {
		d.sql = `WITH r AS (` + insertRTC + `) ` + upsertAudit(n+1)
	}
	d.args = append(d.args, args...)
	return true
}

// upsertAudit writes an audit record from the six arguments from $first.
func upsertAudit(first int) string {
	p := make([]string, 6)
	for i := range p {
		p[i] = "$" + strconv.Itoa(first+i)
	}
	return `INSERT INTO audit (rtc_id, user_id, session_id, created_at, ended_at, data) VALUES (` + strings.Join(p, ", ") + `)
		ON CONFLICT (rtc_id) DO UPDATE SET ended_at = EXCLUDED.ended_at, data = EXCLUDED.data`
}

func (t *tx) AuditGet(rtcID string) (*protocol.AuditRecord, error) {
	var a protocol.AuditRecord
	return &a, t.getJSON(&a, `SELECT data FROM audit WHERE rtc_id = $1`, rtcID)
}

func (t *tx) AuditList(q store.AuditQuery) ([]protocol.AuditRecord, error) {
	var where []string
	var args []any
	arg := func(v any) string {
		args = append(args, v)
		return "$" + strconv.Itoa(len(args))
	}
	if q.UserID != "" {
		where = append(where, "user_id = "+arg(q.UserID))
	}
	if q.SessionID != "" {
		where = append(where, "session_id = "+arg(q.SessionID))
	}
	if !q.Since.IsZero() {
		where = append(where, "created_at >= "+arg(q.Since))
	}
	if q.AfterRTC != "" {
		where = append(where, "ord > COALESCE((SELECT ord FROM audit WHERE rtc_id = "+arg(q.AfterRTC)+"), 0)")
	}
	query := `SELECT data FROM audit`
	if len(where) > 0 {
		query += ` WHERE ` + strings.Join(where, " AND ")
	}
	query += ` ORDER BY ord LIMIT ` + arg(limitOf(store.Page{Limit: q.Limit}))
	return listJSON[protocol.AuditRecord](t, query, args...)
}

func (t *tx) AuditPrune(before time.Time) (int64, error) {
	tag, err := t.exec(`DELETE FROM audit WHERE ended_at IS NOT NULL AND ended_at < $1`, before)
	if err != nil {
		return 0, err
	}
	return tag.RowsAffected(), nil
}
