package store

// RowCache holds, for one write transaction, the sessions and turns (and, in
// the embedded store, RTCs) it read while holding their user's stream lock,
// or wrote: every write of them happens under that lock, so no other
// transaction changes them before the commit, and reading one again costs no
// statement. A store puts a row only when it is sure of that (a read under
// the lock, or a write that took effect).
type RowCache struct{ rows map[RowKey][]byte }

// RowKey names a row: its kind ("session", "turn", "rtc") and id.
type RowKey struct{ Kind, ID string }

// Get returns the cached row of kind and id.
func (c *RowCache) Get(kind, id string) ([]byte, bool) {
	data, ok := c.rows[RowKey{kind, id}]
	return data, ok
}

// Put caches the row's data (JSON, as stored).
func (c *RowCache) Put(kind, id string, data []byte) {
	if c.rows == nil {
		c.rows = map[RowKey][]byte{}
	}
	c.rows[RowKey{kind, id}] = data
}

// All returns the cached rows (not a copy: for reading only).
func (c *RowCache) All() map[RowKey][]byte { return c.rows }
