package store

// RowCache holds, for one write transaction, the sessions and turns (and, in
// the embedded store, RTCs) it read while holding their user's stream lock,
// or wrote: every write of them happens under that lock, so no other
// transaction changes them before the commit, and reading one again costs no
// statement. A store puts a row only when it is sure of that (a read under
// the lock, or a write that took effect).
type RowCache struct{ rows map[string][]byte }

// Get returns the cached row of kind ("session", "turn") and id.
func (c *RowCache) Get(kind, id string) ([]byte, bool) {
	data, ok := c.rows[kind+"/"+id]
	return data, ok
}

// Put caches the row's data (JSON, as stored).
func (c *RowCache) Put(kind, id string, data []byte) {
	if c.rows == nil {
		c.rows = map[string][]byte{}
	}
	c.rows[kind+"/"+id] = data
}

// All returns the cached rows by "kind/id" (not a copy: for reading only).
func (c *RowCache) All() map[string][]byte { return c.rows }
