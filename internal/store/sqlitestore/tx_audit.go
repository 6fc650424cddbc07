package sqlitestore

import (
	"encoding/json"
	"fmt"
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
	var ended any
	if a.EndedAt != nil {
		ended = ms(*a.EndedAt)
	}
	_, err = t.exec(`INSERT INTO audit (rtc_id, user_id, session_id, created_at, ended_at, data) VALUES (?, ?, ?, ?, ?, ?)
		ON CONFLICT(rtc_id) DO UPDATE SET ended_at = excluded.ended_at, data = excluded.data`,
		a.RTCID, a.UserID, a.SessionID, ms(a.CreatedAt), ended, data)
	if err != nil {
		return fmt.Errorf("write audit record: %w", err)
	}
	t.audits = append(t.audits, a)
	return nil
}

func (t *tx) AuditGet(rtcID string) (*protocol.AuditRecord, error) {
	var a protocol.AuditRecord
	return &a, t.getJSON(&a, `SELECT data FROM audit WHERE rtc_id = ?`, rtcID)
}

func (t *tx) AuditList(q store.AuditQuery) ([]protocol.AuditRecord, error) {
	var where []string
	var args []any
	if q.UserID != "" {
		where, args = append(where, "user_id = ?"), append(args, q.UserID)
	}
	if q.SessionID != "" {
		where, args = append(where, "session_id = ?"), append(args, q.SessionID)
	}
	if !q.Since.IsZero() {
		where, args = append(where, "created_at >= ?"), append(args, ms(q.Since))
	}
	if q.AfterRTC != "" {
		where, args = append(where, "ord > COALESCE((SELECT ord FROM audit WHERE rtc_id = ?), 0)"), append(args, q.AfterRTC)
	}
	query := `SELECT data FROM audit`
	if len(where) > 0 {
		query += ` WHERE ` + strings.Join(where, " AND ")
	}
	args = append(args, limitOf(store.Page{Limit: q.Limit}))
	return listJSON[protocol.AuditRecord](t, query+` ORDER BY ord LIMIT ?`, args...)
}

func (t *tx) AuditPrune(before time.Time) (int64, error) {
	res, err := t.exec(`DELETE FROM audit WHERE ended_at IS NOT NULL AND ended_at < ?`, ms(before))
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}
