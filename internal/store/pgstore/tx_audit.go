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
	// Sent with the next statement (pipeline.go), in one with the RTC's write
	// (fuse.go): nothing here needs its answer.
	if err := t.later(nil, upsertAudit, a.RTCID, a.UserID, a.SessionID, a.CreatedAt, a.EndedAt, string(data)); err != nil {
		return fmt.Errorf("write audit record: %w", err)
	}
	t.audits = append(t.audits, a)
	return nil
}

// upsertAudit writes an audit record.
const upsertAudit = `INSERT INTO audit (rtc_id, user_id, session_id, created_at, ended_at, data) VALUES ($1, $2, $3, $4, $5, $6)
	ON CONFLICT (rtc_id) DO UPDATE SET ended_at = EXCLUDED.ended_at, data = EXCLUDED.data`

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
