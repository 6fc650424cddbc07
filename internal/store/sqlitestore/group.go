package sqlitestore

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"sync"
	"time"

	"github.com/rtcagent/rtcagent/internal/stack"
	"github.com/rtcagent/rtcagent/internal/store"
)

// maxGroup bounds how many writes share one commit, which bounds how long the
// first of them waits for the others.
const maxGroup = 32

// group commits concurrent writes together. A write joins the queue; whoever holds
// the leader token takes the queue and runs it on its own goroutine (execHere):
// each write in its own savepoint of one transaction (its prepared run's
// statements, or its fn), then one commit. Writes that arrive meanwhile form
// the next group. A single write runs without
// savepoints, as a plain transaction.
//
// A fn that fails is rolled back to its savepoint and gets its error; the others
// of the group are unaffected. When the commit itself fails, every write of the
// group gets the error, and none of them took effect.
//
// A group publishes its commit (the commit hook, then the stream positions
// readers see) after it gave the token back: the next group runs while the
// hook does. Groups publish in commit order (publishing), so updates still
// reach the hook in offset order; a Write returns once its commit is
// published.
type group struct {
	s          *Store
	leader     chan struct{} // holds one token: the right to run a group
	publishing sync.Mutex    // held from a group's commit to the end of its publishing
	mu         sync.Mutex    // guards queue
	queue      []*write
	closed     bool // the store is closed (stop): groups fail; the token's holder reads it
}

// write is one Write call.
type write struct {
	ctx   context.Context
	fn    func(tx store.Tx) error
	p     *prepared // its prepared run (prepared.go), if it has one
	t     *tx
	err   error
	panic any
	taken chan struct{} // closed once a leader took it into a group
	done  chan struct{}
}

func (g *group) init(s *Store) {
	g.s = s
	g.leader = make(chan struct{}, 1)
}

func (g *group) write(ctx context.Context, fn func(tx store.Tx) error) error {
	p := g.s.prepare(ctx, fn)
	w := &write{ctx: ctx, fn: fn, p: p, taken: make(chan struct{}), done: make(chan struct{})}
	g.mu.Lock()
	g.queue = append(g.queue, w)
	g.mu.Unlock()
	for waiting := true; waiting; {
		select {
		case <-w.taken: // a leader runs it
			waiting = false
		case g.leader <- struct{}{}:
			// Holding the token, no group runs: w was taken (its group
			// publishes) or is still queued, perhaps behind a full group, in
			// which case it waits again. run gives the token back.
			select {
			case <-w.taken:
				<-g.leader
			default:
				g.run(g.take())
			}
		}
	}
	<-w.done
	if w.panic != nil {
		panic(w.panic)
	}
	if p != nil {
		p.done()
	}
	return w.err
}

// hold runs fn while no group runs: writes wait for it and then commit together.
func (g *group) hold(fn func()) {
	g.leader <- struct{}{}
	defer func() { <-g.leader }()
	fn()
}

func (g *group) take() []*write {
	g.mu.Lock()
	defer g.mu.Unlock()
	n := min(len(g.queue), maxGroup)
	batch := g.queue[:n:n]
	for _, w := range batch {
		close(w.taken)
	}
	g.queue = g.queue[n:]
	if len(g.queue) == 0 {
		g.queue = nil
	}
	return batch
}

// run executes one group and finishes every write in it. The caller holds
// the token; run gives it back once the group committed or failed, before it
// publishes the commit.
func (g *group) run(batch []*write) {
	s := g.s
	held := true
	release := func() {
		if held {
			held = false
			<-g.leader
		}
	}
	defer func() {
		release()
		for _, w := range batch {
			close(w.done)
		}
	}()
	if g.closed {
		for _, w := range batch {
			w.err = ErrClosed
		}
		return
	}
	ok, committed := g.execHere(batch)
	if !committed {
		return
	}
	// Publishing waits for the group before, then lets the next one run.
	g.publishing.Lock()
	defer g.publishing.Unlock()
	release()
	s.mu.Lock()
	hook := s.hook
	s.mu.Unlock()
	for _, w := range ok {
		if wake := w.t.Wakes.Pending(); len(w.t.Batch.Updates) > 0 || len(wake) > 0 {
			hook(store.Commit{Updates: w.t.Batch.Updates, Wake: wake, Audits: w.t.Audits})
		}
	}
	// Only now: a position read from it has reached the hook.
	s.mu.Lock()
	for _, w := range ok {
		s.committed.commit(w.t)
	}
	s.mu.Unlock()
}

// exec runs the group's writes in one transaction on the writer connection
// and commits it; it returns the writes that took effect and whether the
// commit did. A write that fails has its error; when the transaction fails,
// every write has it.
func (g *group) exec(batch []*write) (ok []*write, committed bool) {
	s := g.s
	if err := s.takeWriter(context.Background()); err != nil {
		for _, w := range batch {
			w.err = err
		}
		return nil, false
	}
	if err := s.wc.begin(context.Background(), true); err != nil {
		for _, w := range batch {
			w.err = err
		}
		return nil, false
	}
	single := len(batch) == 1
	for _, w := range batch {
		if err := w.ctx.Err(); err != nil {
			w.err = err
			continue
		}
		if !single {
			if _, err := s.wc.ExecContext(context.Background(), "SAVEPOINT w"); err != nil {
				g.abort(batch, err)
				return nil, false
			}
		}
		if err := g.settle(w, single); err != nil {
			g.abort(batch, err)
			return nil, false
		}
		if single {
			if w.err != nil {
				_ = s.wc.end(false)
				return nil, false
			}
		} else {
			if w.err != nil {
				if _, err := s.wc.ExecContext(context.Background(), "ROLLBACK TO w"); err != nil {
					g.abort(batch, err)
					return nil, false
				}
			}
			if _, err := s.wc.ExecContext(context.Background(), "RELEASE w"); err != nil {
				g.abort(batch, err)
				return nil, false
			}
		}
		if w.err == nil {
			ok = append(ok, w)
			s.remember(w.t) // the group's next writes see it; forgotten below if the commit fails
		}
	}
	if err := s.wc.end(true); err != nil {
		s.forget()
		_ = s.wc.end(false) // a failed COMMIT leaves the transaction open
		for _, w := range ok {
			w.err = fmt.Errorf("commit: %w", err)
		}
		return nil, false
	}
	return ok, true
}

// settled keeps what a committed group changed in the writer's own tables
// (leases, resume items) and counts its commit.
func (g *group) settled(ok []*write, began time.Time) {
	s := g.s
	s.leases.committed()
	s.resumes.committed()
	s.countCommit(s.wc.c, len(ok), time.Since(began))
}

// execHere runs exec on the goroutine of the write that leads the group,
// its stack grown first in one step (stack.Grow): SQLite's calls go deep,
// and a stack grown a doubling at a time is copied at each. Running the
// group here, not handing it to a goroutine of its own, spares two hand-offs
// between goroutines a write. When exec unwinds (a panic outside the writes'
// functions, or a write's function that ends its goroutine, as a failed test
// does) before its commit, the group's transaction is rolled back and each
// of its writes without an error of its own fails, so the writer takes the
// next group; the panic or the goroutine's end goes on in this goroutine.
func (g *group) execHere(batch []*write) (ok []*write, committed bool) {
	stack.Grow()
	began := time.Now()
	returned := false
	defer func() {
		if !returned {
			g.abort(batch, errUnwound)
		}
	}()
	ok, committed = g.exec(batch)
	returned = true
	if committed {
		g.settled(ok, began)
	}
	return ok, committed
}

// errUnwound is the error of a group's writes when running it unwound.
var errUnwound = errors.New("the group's leader unwound")

// stop waits for the group running, if any; groups after it fail.
func (g *group) stop() {
	g.leader <- struct{}{}
	defer func() { <-g.leader }()
	g.closed = true
}

// ErrClosed is the error of a write after Close.
var ErrClosed = errors.New("sqlitestore: the store is closed")

// abort rolls the whole group back after a savepoint could not be handled (the
// database ended the transaction, for instance on a full disk).
func (g *group) abort(batch []*write, cause error) {
	g.s.forget()
	_ = g.s.wc.end(false)
	for _, w := range batch {
		if w.err == nil {
			w.err = fmt.Errorf("write group rolled back: %w", cause)
		}
	}
}

// call runs the write's fn, turning a panic into an error for the group and
// re-raising it in the writer's own goroutine.
func call(w *write) (err error) {
	defer func() {
		if p := recover(); p != nil {
			w.panic = p
			err = fmt.Errorf("panic in write: %v", p)
		}
	}()
	if err := w.fn(w.t); err != nil {
		return err
	}
	return w.t.Batch.SealAll(w.t.writeUpdate)
}

// settle gives w its outcome under the writer: its prepared run's when that
// holds (prepared.settle), its function's otherwise, after the prepared
// run's statements were taken back. An error is one of taking them back: the
// group's transaction is lost.
func (g *group) settle(w *write, single bool) error {
	s := g.s
	if p := w.p; p != nil {
		w.p = nil
		if p.settle(s) {
			s.countPrepared(true)
			w.t, w.err = &p.tx, p.err
			return nil
		}
		s.countPrepared(false)
		if single {
			_ = s.wc.end(false) // an error when the failed statement ended the transaction already
			if err := s.wc.begin(context.Background(), true); err != nil {
				return err
			}
		} else if _, err := s.wc.ExecContext(context.Background(), "ROLLBACK TO w"); err != nil {
			return err
		}
	}
	w.t = new(tx)
	s.writeTx(w.ctx, w.t, counted{s.wc})
	w.err = call(w)
	return nil
}

// writeTx makes t a write transaction of ctx that sends its statements to
// q and reads the writer's memory.
func (s *Store) writeTx(ctx context.Context, t *tx, q querier) {
	*t = tx{q: q, mem: &s.mem, inboxID: &s.inboxID, leaseTab: &s.leases, resumeTab: &s.resumes, rows: &s.rows, known: s.known,
		knownInbox: s.inbox, knownSeqs: s.seqs, knownOpen: s.open, knownStreaming: s.streaming, knownMsgSeqs: s.msgSeqs, knownQueued: s.queued}
	t.Shared = store.NewShared(driver{t}, store.TxState{Ctx: context.WithoutCancel(ctx), At: s.now().UTC(), Writable: true, Epoch: s.epoch})
}

// remember keeps what write t read and wrote as the writer's memory of the
// database (stream positions, rows, leases, inbox items), once t took effect.
func (s *Store) remember(t *tx) {
	s.mem.Lock()
	defer s.mem.Unlock()
	s.known.commit(t)
	s.rows.commit(t)
	s.leases.keep(t.leases)
	s.resumes.keep(t.resumes)
	keep(s.inbox, t.inbox)
	keep(s.seqs, t.seqs)
	keep(s.open, t.open)
	keep(s.streaming, t.streaming)
	keep(s.msgSeqs, t.msgSeqs)
	keep(s.queued, t.queued)
}

// keep merges what a write staged into what the writer knows, which starts
// over when both together would pass maxKnownRows.
func keep[V any](known, staged map[string]V) {
	if len(known)+len(staged) > maxKnownRows {
		clear(known)
	}
	maps.Copy(known, staged)
}

// forget drops the writer's memory of the database: the group it kept it
// for was rolled back. The next writes read what they need again.
func (s *Store) forget() {
	s.mem.Lock()
	defer s.mem.Unlock()
	clear(s.known)
	s.rows.clear()
	s.leases.rollBack()
	s.resumes.rollBack()
	clear(s.inbox)
	clear(s.seqs)
	clear(s.open)
	clear(s.streaming)
	clear(s.msgSeqs)
	clear(s.queued)
}
