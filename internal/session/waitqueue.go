package session

// waitQueue is the sessions known to have inbox work that no drain here holds,
// in the order they were woken or read. A session leaves it when a drain of
// this process is reserved for it, whatever the way.
type waitQueue struct {
	order []string
	in    map[string]bool
}

func (q *waitQueue) len() int { return len(q.in) }

// push adds id at the back unless it waits already.
func (q *waitQueue) push(id string) {
	if q.in[id] {
		return
	}
	if q.in == nil {
		q.in = map[string]bool{}
	}
	q.in[id] = true
	q.order = append(q.order, id)
}

// putFirst puts ids, in their order, ahead of every session waiting.
func (q *waitQueue) putFirst(ids []string) {
	rest := q.order
	q.order = nil
	for _, id := range ids {
		delete(q.in, id)
		q.push(id)
	}
	for _, id := range rest {
		if q.in[id] {
			delete(q.in, id)
			q.push(id)
		}
	}
}

// remove takes id out; its place in order is dropped when reached.
func (q *waitQueue) remove(id string) {
	delete(q.in, id)
	if len(q.order) > 64 && len(q.order) > 2*len(q.in) {
		q.putFirst(nil) // drop the places of removed sessions
	}
}

// pop takes the session waiting longest.
func (q *waitQueue) pop() (string, bool) {
	for len(q.order) > 0 {
		id := q.order[0]
		q.order = q.order[1:]
		if q.in[id] {
			delete(q.in, id)
			return id, true
		}
	}
	return "", false
}
