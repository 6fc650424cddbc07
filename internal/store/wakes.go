package store

// Wakes is what a write transaction queued work for: the sessions that got
// inbox items, and the sessions whose lease it holds. A holder takes the items
// of its session before it lets the lease go (it reads the inbox in the
// transaction that releases it), so a held session needs no wake-up.
type Wakes struct {
	ids  []string
	held map[string]bool
}

// Add notes an inbox item for the session.
func (w *Wakes) Add(sessionID string) { w.ids = append(w.ids, sessionID) }

// Added reports whether the transaction queued an item for the session.
func (w *Wakes) Added(sessionID string) bool {
	for _, id := range w.ids {
		if id == sessionID {
			return true
		}
	}
	return false
}

// All returns the sessions that got items, in order.
func (w *Wakes) All() []string { return w.ids }

// Hold notes that the transaction holds the session's lease.
func (w *Wakes) Hold(sessionID string) {
	if w.held == nil {
		w.held = map[string]bool{}
	}
	w.held[sessionID] = true
}

// Let notes that the transaction released the session's lease.
func (w *Wakes) Let(sessionID string) { delete(w.held, sessionID) }

// Held reports whether the transaction holds the session's lease.
func (w *Wakes) Held(sessionID string) bool { return w.held[sessionID] }

// Pending returns the sessions that got items and whose lease the transaction
// does not hold: the ones someone must be woken for.
func (w *Wakes) Pending() []string {
	var out []string
	for _, id := range w.ids {
		if !w.held[id] {
			out = append(out, id)
		}
	}
	return out
}
