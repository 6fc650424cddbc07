package pgstore

import "sync"

// sequencer makes this process's commit hooks see each user's commits in offset
// order.
//
// Offsets are assigned under the user's user_streams row lock, held until commit, so
// a user's transactions commit in offset order. The calls after commit can still
// race (two goroutines on two connections), so each transaction takes a ticket when
// it locks a user's row: the order in which tickets are taken is the lock order,
// which is the commit order. After commit (or rollback) the transaction waits until
// the transactions holding the previous tickets of its users have delivered their
// hooks, delivers its own, and leaves.
//
// It cannot deadlock: a transaction waits only for tickets taken before its own, whose
// holders have already released the row lock and hold no database locks while they
// deliver. Transactions of different users do not wait for each other.
type sequencer struct {
	mu    sync.Mutex
	tails map[string]*ticket // the newest ticket of each user with one in flight
}

type ticket struct {
	user string
	prev chan struct{} // closed when the previous ticket of the user has left; nil if none
	done chan struct{} // closed when this ticket leaves
}

// enter takes the next ticket of user. The caller holds the user's row lock.
func (s *sequencer) enter(user string) *ticket {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.tails == nil {
		s.tails = make(map[string]*ticket)
	}
	t := &ticket{user: user, done: make(chan struct{})}
	if p := s.tails[user]; p != nil {
		t.prev = p.done
	}
	s.tails[user] = t
	return t
}

// wait returns when every earlier ticket of the user has left.
func (t *ticket) wait() {
	if t.prev != nil {
		<-t.prev
	}
}

// leave lets the next ticket of the user go; the map forgets idle users.
func (s *sequencer) leave(t *ticket) {
	s.mu.Lock()
	if s.tails[t.user] == t {
		delete(s.tails, t.user)
	}
	s.mu.Unlock()
	close(t.done)
}
