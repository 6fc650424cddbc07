package realtime

import (
	"cmp"
	"context"
	"log/slog"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/centrifugal/centrifuge"

	"github.com/rtcagent/rtcagent/internal/protocol"
	"github.com/rtcagent/rtcagent/internal/store"
)

// The relay publishes committed Topic updates, each user's in offset order,
// without ever making a commit wait on the broker.
//
// The commit hook (note) records per user the newest committed offset and, while
// memory allows, the updates themselves; it takes one mutex and nothing else. One
// worker publishes each user's pending updates: from memory when it holds all of
// them, else read back from the store, which is the Topic's history. When the
// broker fails, the worker retries with backoff while commits go on; once the
// broker is back the worker catches up from the store. Clients that noticed the
// gap meanwhile recover by offset from the store too.
//
// In a cluster a user's stream in the store also holds the updates other nodes
// committed, which those nodes publish. A read back therefore publishes only the
// offsets this node noted: while a user's updates are not held, the relay keeps
// the runs of consecutive offsets it noted (one run per user on a single node; a
// new run each time another node wrote in between). Runs are bounded across users
// like held updates; past the bound a user's newest run is stretched over the
// offsets between, whose updates are then published a second time. Centrifuge
// skips a publication whose offset a client's subscription is already past, so
// that costs broker traffic, not a client's state.
const (
	// relayHeld bounds the updates held in memory across users; past it a user's
	// pending updates are read back from the store.
	relayHeld = 4096
	// relayBatch is how many updates of one user are published before the next
	// user's turn, so one busy user cannot hold back the others.
	relayBatch = 256
	// relayRuns bounds the runs of noted offsets kept across users while their
	// updates are not held.
	relayRuns = 4096
	// relayMaxBackoff caps the wait between attempts while the broker fails.
	relayMaxBackoff = 2 * time.Second
)

// run is a range of consecutive offsets this node noted, from through to.
type run struct{ from, to int64 }

// pending is what a user has committed and this node has not yet published.
type pending struct {
	next   int64             // first offset not yet published: where a store read starts
	top    int64             // newest committed offset noted
	held   bool              // cached holds every noted, unpublished update
	cached []protocol.Update // in offset order, while held
	runs   []run             // the offsets noted and not yet published, while not held
	queued bool              // the user is in the relay's queue
}

// addRun records a noted offset while the user's updates are not held. It reports
// whether it took a new run.
func (p *pending) addRun(offset int64, stretch bool) bool {
	if n := len(p.runs); n > 0 && (offset == p.runs[n-1].to+1 || stretch) {
		p.runs[n-1].to = offset
		return false
	}
	p.runs = append(p.runs, run{offset, offset})
	return true
}

// noted reports whether this node noted the offset, while not held.
func (p *pending) noted(offset int64) bool {
	i, _ := slices.BinarySearchFunc(p.runs, offset, func(r run, o int64) int { return cmp.Compare(r.to, o) })
	return i < len(p.runs) && p.runs[i].from <= offset
}

// dropRuns forgets the runs that end before offset and returns how many.
func (p *pending) dropRuns(offset int64) int {
	n := 0
	for n < len(p.runs) && p.runs[n].to < offset {
		n++
	}
	p.runs = p.runs[n:]
	if len(p.runs) == 0 {
		p.runs = nil
	}
	return n
}

type relay struct {
	store     store.Store
	log       *slog.Logger
	publish   func(protocol.Update) error
	pageBytes int // bounds one read back from the store

	mu      sync.Mutex
	users   map[string]*pending
	queue   []string // users with pending updates, each at most once
	held    int      // updates held across users
	runs    int      // runs kept across users
	closing bool

	wake chan struct{} // a hint that the queue changed (capacity 1)
	// ctx ends when the relay must stop at once; it also bounds store reads.
	ctx  context.Context
	quit context.CancelFunc
	done chan struct{} // closed when the worker returned
}

func newRelay(st store.Store, log *slog.Logger, pageBytes int, publish func(protocol.Update) error) *relay {
	ctx, quit := context.WithCancel(context.Background())
	return &relay{store: st, log: log, publish: publish, pageBytes: pageBytes, users: map[string]*pending{},
		wake: make(chan struct{}, 1), ctx: ctx, quit: quit, done: make(chan struct{})}
}

// publishTo publishes an update on a node, stamped with its store position.
func publishTo(node *centrifuge.Node) func(protocol.Update) error {
	return func(u protocol.Update) error {
		tags := map[string]string{tagOffset: strconv.FormatInt(u.Offset, 10), tagEpoch: u.Epoch}
		_, err := node.Publish(TopicChannel(u.UserID), mustPayload(u), centrifuge.WithTags(tags))
		return err
	}
}

func (r *relay) start() { go r.loop() }

// note records committed updates (in offset order per user). It never blocks on
// the broker, the store or the worker.
func (r *relay) note(updates []protocol.Update) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closing {
		return // clients recover these from the store
	}
	for _, u := range updates {
		p := r.users[u.UserID]
		if p == nil {
			p = &pending{next: u.Offset, held: true}
			r.users[u.UserID] = p
		}
		p.top = max(p.top, u.Offset)
		switch {
		case p.held && r.held < relayHeld:
			p.cached = append(p.cached, u)
			r.held++
		case p.held:
			// From now on the updates are read back from the store: keep their
			// offsets only.
			for _, c := range p.cached {
				r.addRun(p, c.Offset)
			}
			r.held -= len(p.cached)
			p.cached, p.held = nil, false
			r.addRun(p, u.Offset)
		default:
			r.addRun(p, u.Offset)
		}
		if !p.queued {
			p.queued = true
			r.queue = append(r.queue, u.UserID)
		}
	}
	r.signal()
}

// addRun notes an offset of a user whose updates are not held, within the bound
// on runs.
func (r *relay) addRun(p *pending, offset int64) {
	if p.addRun(offset, r.runs >= relayRuns) {
		r.runs++
	}
}

func (r *relay) signal() {
	select {
	case r.wake <- struct{}{}:
	default:
	}
}

// stop publishes what is pending and stops the worker; when ctx ends first it
// stops at once and leaves the rest to the clients' recovery from the store.
func (r *relay) stop(ctx context.Context) {
	r.mu.Lock()
	r.closing = true
	r.mu.Unlock()
	r.signal()
	select {
	case <-r.done:
	case <-ctx.Done():
		r.quit()
		r.mu.Lock()
		n := len(r.users)
		r.mu.Unlock()
		r.log.Warn("relay stopped with updates unpublished; clients recover them from the store", "users", n)
	}
}

func (r *relay) loop() {
	defer close(r.done)
	var backoff time.Duration
	for {
		user, ok := r.pop()
		if !ok {
			return
		}
		err := r.flush(user)
		if err == nil {
			if backoff > 0 {
				r.log.Info("relay publishing again")
			}
			backoff = 0
			continue
		}
		if backoff == 0 {
			r.log.Warn("relay cannot publish; retrying, commits go on", "err", err)
		}
		backoff = min(max(2*backoff, 50*time.Millisecond), relayMaxBackoff)
		select {
		case <-time.After(backoff):
		case <-r.ctx.Done():
			return
		}
	}
}

// pop waits for the next user with pending updates. It reports false when the
// relay stops: at once on quit, or once nothing is pending after stop.
func (r *relay) pop() (string, bool) {
	for {
		select {
		case <-r.ctx.Done():
			return "", false
		default:
		}
		r.mu.Lock()
		if len(r.queue) > 0 {
			user := r.queue[0]
			r.queue[0] = ""
			r.queue = r.queue[1:]
			r.users[user].queued = false
			r.mu.Unlock()
			return user, true
		}
		closing := r.closing
		r.mu.Unlock()
		if closing {
			return "", false
		}
		select {
		case <-r.wake:
		case <-r.ctx.Done():
			return "", false
		}
	}
}

// flush publishes up to one batch of the user's pending updates, in offset order,
// and queues the user again while some remain.
func (r *relay) flush(user string) error {
	r.mu.Lock()
	p := r.users[user]
	fromStore := !p.held
	var batch []protocol.Update
	if p.held {
		batch = slices.Clone(p.cached[:min(len(p.cached), relayBatch)])
	}
	next := p.next
	r.mu.Unlock()

	var err error
	var past int64 // with fromStore: the offset after those read
	if fromStore {
		batch, past, err = r.readNoted(user, p, next)
	}
	sent := 0 // published; a failed one is not, and is tried again
	for err == nil && sent < len(batch) {
		if err = r.publish(batch[sent]); err == nil {
			sent++
		}
	}

	r.mu.Lock()
	defer r.mu.Unlock()
	if sent > 0 {
		p.next = max(p.next, batch[sent-1].Offset+1)
		if !fromStore && p.held {
			p.cached = p.cached[sent:]
			r.held -= sent
		}
	}
	if fromStore && err == nil {
		// Every update read is published or another node's.
		p.next = max(p.next, past)
	}
	if len(p.cached) == 0 {
		p.cached = nil
	}
	r.runs -= p.dropRuns(p.next)
	if p.next > p.top && !p.held {
		p.held = true // caught up: later updates can be held in memory again
	}
	switch {
	case err != nil || p.next <= p.top:
		if !p.queued {
			p.queued = true
			r.queue = append(r.queue, user)
		}
	case p.queued:
		// noted again while publishing; the next turn finds what is new
	default:
		delete(r.users, user)
	}
	return err
}

// readNoted reads the user's committed updates from offset next on, at most one
// batch, and returns those this node noted and the offset after the last one
// read up to the newest noted. When the store has none of them (history
// discarded or pruned) that is past the newest noted: the clients find the gap
// and recover what is left.
func (r *relay) readNoted(user string, p *pending, next int64) ([]protocol.Update, int64, error) {
	var list []protocol.Update
	err := r.store.Read(r.ctx, func(tx store.Tx) error {
		var err error
		list, _, err = tx.UpdateList(user, next-1, relayBatch, r.pageBytes)
		return err
	})
	if err != nil {
		return nil, next, err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	var noted []protocol.Update
	past := p.top + 1
	for i, u := range list {
		if u.Offset > p.top {
			break
		}
		if p.noted(u.Offset) {
			noted = append(noted, u)
		}
		if i == len(list)-1 || list[i+1].Offset > p.top {
			past = u.Offset + 1
		}
	}
	return noted, past, nil
}
