package pgstore

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/rtcagent/rtcagent/internal/protocol"
)

// migrationSteps are what a migration does after its SQL, in the same
// transaction, by version: the changes of stored JSON that PostgreSQL's own
// JSON functions cannot make without refusing or rewriting it.
var migrationSteps = map[int]func(context.Context, pgx.Tx) error{9: moveAuditState}

// moveAuditState gives each call stored before RTCs carried their audit
// record's state (migration 009) the state of its record in the audit table,
// added to its data as it is: its other bytes (the arguments and output as
// the model saw them) stay the same. A call whose data is not a JSON object is
// left as it is.
func moveAuditState(ctx context.Context, tx pgx.Tx) error {
	const page = 500
	type row struct {
		ord       int64
		data, rec []byte
	}
	for after := int64(0); ; {
		rows, err := tx.Query(ctx, `SELECT r.ord, r.data, a.data FROM rtcs r JOIN audit a ON a.rtc_id = r.id
			WHERE r.ord > $1 ORDER BY r.ord LIMIT $2`, after, page)
		if err != nil {
			return err
		}
		list, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (row, error) {
			var x row
			return x, r.Scan(&x.ord, &x.data, &x.rec)
		})
		if err != nil {
			return err
		}
		for _, x := range list {
			after = x.ord
			data, ok := withAuditState(x.data, x.rec)
			if !ok {
				continue
			}
			if _, err := tx.Exec(ctx, `UPDATE rtcs SET data = $2 WHERE ord = $1`, x.ord, string(data)); err != nil {
				return fmt.Errorf("move the audit state of call %d: %w", x.ord, err)
			}
		}
		if len(list) < page {
			return nil
		}
	}
}

// withAuditState is a call's stored data with the state of its audit record
// rec added last, and true; false when the data carries a state already or
// either is not a JSON object.
func withAuditState(data, rec []byte) ([]byte, bool) {
	var has struct {
		State json.RawMessage `json:"audit_state"`
	}
	var a protocol.AuditRecord
	if json.Unmarshal(data, &has) != nil || json.Unmarshal(rec, &a) != nil || (len(has.State) > 0 && string(has.State) != "null") {
		return nil, false
	}
	body := bytes.TrimSpace(data)
	if len(body) < 2 || body[0] != '{' || body[len(body)-1] != '}' {
		return nil, false
	}
	body = bytes.TrimSpace(body[:len(body)-1])
	state, _ := json.Marshal(a.State())
	out := append([]byte{}, body...)
	if len(body) > 1 {
		out = append(out, ',')
	}
	out = append(out, `"audit_state":`...)
	out = append(out, state...)
	return append(out, '}'), true
}
