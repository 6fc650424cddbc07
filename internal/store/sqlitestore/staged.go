package sqlitestore

import (
	"maps"
	"sync"
)

// staged is a table the writer keeps in memory instead of the file (leases,
// resume items): what its commits left (m), and what the writes of the
// group being committed left (group), which become m's when the group
// commits (committed) or are dropped when its commit fails (rollBack). The
// writer alone changes it, under mu; read transactions see m, under mu.
type staged[V any] struct {
	mu    sync.RWMutex
	m     map[string]V
	group map[string]V
	// gone reports a value that takes its key out of m once committed.
	gone func(V) bool
}

// get returns key's value as committed, and as the group being committed
// left it when group is true (the writer).
func (st *staged[V]) get(key string, group bool) V {
	if group {
		if v, ok := st.group[key]; ok {
			return v
		}
	}
	st.mu.RLock()
	defer st.mu.RUnlock()
	return st.m[key]
}

// latest returns key's value as the group being committed left it, under
// the read lock (a prepared run's read, off the writer).
func (st *staged[V]) latest(key string) V {
	st.mu.RLock()
	defer st.mu.RUnlock()
	if v, ok := st.group[key]; ok {
		return v
	}
	return st.m[key]
}

// keep stages what a write of the group left, until the group commits or
// is rolled back.
func (st *staged[V]) keep(values map[string]V) {
	if len(values) == 0 {
		return
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.group == nil {
		st.group = map[string]V{}
	}
	maps.Copy(st.group, values)
}

// committed makes the group's values the table's: its commit took effect.
func (st *staged[V]) committed() {
	if len(st.group) == 0 {
		return
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.m == nil {
		st.m = map[string]V{}
	}
	for k, v := range st.group {
		if st.gone(v) {
			delete(st.m, k)
		} else {
			st.m[k] = v
		}
	}
	clear(st.group)
}

// rollBack drops the group's values: its commit failed.
func (st *staged[V]) rollBack() {
	st.mu.Lock()
	defer st.mu.Unlock()
	clear(st.group)
}
