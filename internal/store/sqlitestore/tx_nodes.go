package sqlitestore

import (
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// nodeRetention is how long an expired liveness record is kept: far longer than
// any lease TTL, so deleting it (which makes its leases wait for their own
// expiry again) never frees anything early.
const nodeRetention = time.Hour

func (t *tx) NodeBeat(node string, ttl time.Duration) error {
	if _, err := t.exec(`INSERT INTO nodes (node_id, expires_at) VALUES (?, ?)
		ON CONFLICT (node_id) DO UPDATE SET expires_at = excluded.expires_at`, node, ms(t.now.Add(ttl))); err != nil {
		return fmt.Errorf("node beat: %w", err)
	}
	if _, err := t.exec(`DELETE FROM nodes WHERE expires_at < ?`, ms(t.now.Add(-nodeRetention))); err != nil {
		return fmt.Errorf("prune nodes: %w", err)
	}
	return nil
}

func (t *tx) NodeLeave(node string) error {
	if _, err := t.exec(`UPDATE nodes SET expires_at = ? WHERE node_id = ?`, ms(t.now), node); err != nil {
		return fmt.Errorf("node leave: %w", err)
	}
	return nil
}

// nodeLive reports whether node's leases count as live: it has no liveness
// record (its leases last their TTL) or an unexpired one. A failed read counts
// as live, so an error never frees a lease.
func (t *tx) nodeLive(node string) bool {
	var expires int64
	err := t.q.QueryRowContext(t.ctx, `SELECT expires_at FROM nodes WHERE node_id = ?`, node).Scan(&expires)
	if errors.Is(err, sql.ErrNoRows) {
		return true
	}
	return err != nil || expires > ms(t.now)
}
