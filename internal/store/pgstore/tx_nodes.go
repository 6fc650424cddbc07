package pgstore

import (
	"fmt"
	"time"
)

// nodeRetention is how long an expired liveness record is kept: far longer than
// any lease TTL, so deleting it (which makes its leases wait for their own
// expiry again) never frees anything early.
const nodeRetention = time.Hour

func (t *tx) NodeBeat(node string, ttl time.Duration) error {
	if _, err := t.exec(`INSERT INTO nodes (node_id, expires_at) VALUES ($1, $2)
		ON CONFLICT (node_id) DO UPDATE SET expires_at = excluded.expires_at`, node, t.now.Add(ttl)); err != nil {
		return fmt.Errorf("node beat: %w", err)
	}
	if _, err := t.exec(`DELETE FROM nodes WHERE expires_at < $1`, t.now.Add(-nodeRetention)); err != nil {
		return fmt.Errorf("prune nodes: %w", err)
	}
	return nil
}

func (t *tx) NodeLeave(node string) error {
	if _, err := t.exec(`UPDATE nodes SET expires_at = $2 WHERE node_id = $1`, node, t.now); err != nil {
		return fmt.Errorf("node leave: %w", err)
	}
	return nil
}
