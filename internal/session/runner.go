package session

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"log/slog"
	"sync"
	"time"

	"github.com/rtcagent/rtcagent/internal/cancels"
	"github.com/rtcagent/rtcagent/internal/llm"
	"github.com/rtcagent/rtcagent/internal/pricing"
	"github.com/rtcagent/rtcagent/internal/protocol"
	"github.com/rtcagent/rtcagent/internal/store"
	"github.com/rtcagent/rtcagent/internal/telemetry"
	"github.com/rtcagent/rtcagent/internal/tools"
)

// LivePublisher sends Live deltas to a user's connections (best effort).
type LivePublisher interface {
	PublishDelta(userID string, d protocol.Delta) error
	PublishCallDelta(userID string, d protocol.CallDelta) error
}

// Config configures a Runner. Zero durations take the documented defaults.
type Config struct {
	Store      store.Store
	Model      llm.Model
	Live       LivePublisher
	Logger     *slog.Logger
	Limits     protocol.Limits
	System     string            // system prompt
	Compaction Compaction        // automatic summaries of long histories; zero = off
	Prices     pricing.Table     // cost of usage; nil = unknown
	Tracer     *telemetry.Tracer // traces of turns; nil = off
	LeaseTTL   time.Duration     // default 30 s; renewed every third of it
	// NodeTTL is the life of this process's liveness record, renewed every
	// third of it (default 3 s): the time after which other nodes take over the
	// sessions of a process that died, whatever their lease TTL.
	NodeTTL      time.Duration
	PollInterval time.Duration // inbox and deadline backstop poll; default 1 s
	// Concurrency is how many sessions this process drains at once (model
	// steps and server-side tools in flight); a session with work beyond it
	// waits for a slot, in the order the sessions asked. Default 256.
	Concurrency int
	Holder      string   // lease holder id; default random per process
	Partials    Partials // text of streaming messages; default in this process's memory
	// ModelRetries is how often a step is retried after a transient model error
	// (rate limit, provider unavailable) that struck before anything streamed;
	// default 3, negative disables. RetryBackoff is the first wait, doubled each
	// time; default 1 s.
	ModelRetries int
	RetryBackoff time.Duration
	// InputWithItem reads a turn's first step input (its transcript, brought up
	// to date) in the transaction that takes the inbox item, instead of a read
	// transaction of its own after it: one transaction and a few statements
	// fewer per step where each statement is a network exchange (PostgreSQL).
	InputWithItem bool
	// ServerTools are the tools the server executes itself (MCP servers); nil:
	// none.
	ServerTools tools.ServerTools
	// SoleWriter says no process but this one writes the store (embedded
	// SQLite, whose file it locks): no other node could drain a session, so
	// a write adopts the sessions it gives work whether a slot is free or not
	// (elsewhere only with one free, unless the node sees no other node
	// alive: alone.go), and a claim pass starts the sessions this process's
	// commits woke without reading the inbox.
	SoleWriter bool
	// VerifyTranscripts reads every step's transcript again from the store and
	// fails the step when it builds another model request than the cached one
	// (tests).
	VerifyTranscripts bool
}

// Runner claims sessions with work and drains them.
type Runner struct {
	cfg    Config
	log    *slog.Logger
	wake   chan struct{}
	sem    chan struct{}
	wg     sync.WaitGroup
	mu     sync.Mutex
	ctx    context.Context // Run's, while it runs; nil before and after
	active map[string]bool // sessions drained by this process
	// missed: sessions woken while drained here; their drain may have read the
	// inbox before the work committed, so a claim follows it.
	missed map[string]bool
	// waiting: sessions known to have work and no drain here (woken, with
	// Config.SoleWriter, or read from the inbox); a claim pass starts them.
	waiting waitQueue
	// readInbox: a claim pass must read the inbox (a wake-up that named no
	// session or one woken elsewhere, the poll).
	readInbox bool
	// backlog: there may be sessions with work beyond those waiting (a pass
	// asked to read found as many claimed drains waiting as there are slots,
	// or read as many as it asks for).
	backlog bool
	// claimWaiting: drains the claim passes started that wait for a slot
	// before taking their lease; a pass starts no more than there are slots.
	claimWaiting int
	// alone: this node's last liveness renewal found no other node alive
	// (never set for a sole writer); others is closed when it sees one
	// (alone.go).
	alone    bool
	others   chan struct{}
	releases releases    // leases given back together (release.go)
	cancels  cancels.Set // running model streams and server calls by turn, for stop
	parts    Partials
	tcache   *transcriptCache
}

// New creates a Runner; call Run to start it.
func New(cfg Config) *Runner {
	if cfg.LeaseTTL <= 0 {
		cfg.LeaseTTL = 30 * time.Second
	}
	if cfg.NodeTTL <= 0 {
		cfg.NodeTTL = 3 * time.Second
	}
	if cfg.PollInterval <= 0 {
		cfg.PollInterval = time.Second
	}
	if cfg.Concurrency <= 0 {
		cfg.Concurrency = 256
	}
	if cfg.Holder == "" {
		var b [8]byte
		_, _ = rand.Read(b[:])
		cfg.Holder = hex.EncodeToString(b[:])
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.ModelRetries == 0 {
		cfg.ModelRetries = 3
	}
	if cfg.RetryBackoff <= 0 {
		cfg.RetryBackoff = time.Second
	}
	if cfg.Partials == nil {
		cfg.Partials = NewMemoryPartials()
	}
	cfg.Limits = cfg.Limits.WithDefaults()
	metricActiveLimit.Set(float64(cfg.Concurrency))
	return &Runner{cfg: cfg, log: cfg.Logger.With("component", "session"), wake: make(chan struct{}, 1),
		sem: make(chan struct{}, cfg.Concurrency), active: map[string]bool{}, missed: map[string]bool{},
		readInbox: true, parts: cfg.Partials, tcache: newTranscriptCache()}
}

// Committed hands the runner the updates of a commit of this process (from the
// store's commit hook), so the transcripts it caches catch up without reading
// them back. It never blocks on anything but a short lock.
func (r *Runner) Committed(ups []protocol.Update) { r.tcache.feed.add(ups) }

// Wake is a hint that sessions got inbox work (nil: some sessions). It never
// blocks. Sessions a worker of this process drains need no claim (the worker
// takes their new items before it lets go), so each is noted as missed, for a
// claim when its drain ends; a hint naming only those starts no claim pass.
func (r *Runner) Wake(sessionIDs []string) {
	if r.note(sessionIDs) {
		r.kick()
	}
}

// kick asks for a claim pass.
func (r *Runner) kick() {
	select {
	case r.wake <- struct{}{}:
	default:
	}
}

// note records a wake-up and reports whether a claim pass should follow.
func (r *Runner) note(ids []string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(ids) == 0 {
		r.readInbox = true
		return true
	}
	pass := false
	for _, id := range ids {
		if r.active[id] {
			r.missed[id] = true
			continue
		}
		pass = true
		if r.cfg.SoleWriter {
			r.waiting.push(id)
		} else {
			r.readInbox = true
		}
	}
	return pass
}

// settleMissed, under mu, puts a session woken while drained here (its work
// may have committed after the drain's last read of the inbox) up for a claim
// again, and reports whether it was.
func (r *Runner) settleMissed(id string) bool {
	if !r.missed[id] {
		return false
	}
	delete(r.missed, id)
	if r.cfg.SoleWriter {
		r.waiting.push(id)
	} else {
		r.readInbox = true
	}
	return true
}

// CancelTurn is a hint that a turn was stopped: its model stream, if this process
// runs it, is cancelled now rather than at the next write.
func (r *Runner) CancelTurn(turnID string) {
	r.cancels.Stop(turnID) // also a drain that registers later: it had not yet when the stop committed
}

// Partial returns the text streamed so far of a streaming message and the Live seq
// of its last delta. It waits at most partialWait for the buffer.
func (r *Runner) Partial(messageID string) (string, int64, bool) {
	ctx, cancel := context.WithTimeout(context.Background(), partialWait)
	defer cancel()
	text, seq, ok, err := r.parts.Get(ctx, messageID)
	if err != nil {
		r.log.Warn("read partial text", "message", messageID, "err", err)
	}
	return text, seq, ok
}

// Run claims and drains sessions and enforces deadlines until ctx ends, then waits
// for the drains in progress to stop.
func (r *Runner) Run(ctx context.Context) {
	poll := time.NewTicker(r.cfg.PollInterval)
	defer poll.Stop()
	// The liveness record exists before the first lease is taken, so no lease
	// of this process ever falls back to its full TTL while the process lives.
	if err := r.beatOnce(ctx); err != nil && ctx.Err() == nil {
		r.log.Warn("record node liveness", "node", r.cfg.Holder, "err", err)
	}
	beatCtx, stopBeat := context.WithCancel(context.WithoutCancel(ctx))
	beatDone := make(chan struct{})
	go func() {
		defer close(beatDone)
		r.beat(beatCtx)
	}()
	r.mu.Lock()
	r.ctx = ctx
	r.mu.Unlock()
	defer func() {
		r.mu.Lock()
		r.ctx = nil // no drain starts after this: Adopt checks it under mu
		r.mu.Unlock()
		r.wg.Wait()
		// Beat until the drains gave their leases back, then leave.
		stopBeat()
		<-beatDone
		r.leave()
	}()
	r.expireDeadlines(ctx)
	for {
		r.claim(ctx)
		select {
		case <-ctx.Done():
			return
		case <-r.wake:
		case <-poll.C:
			r.mu.Lock()
			r.readInbox = true
			r.mu.Unlock()
			r.expireDeadlines(ctx)
		}
	}
}

// claim starts a drain for each session with inbox work and a free lease: those
// waiting in memory, and when asked to read, those the inbox has.
func (r *Runner) claim(ctx context.Context) {
	// With as many claimed drains waiting as there are slots the pass starts
	// nothing: it notes the backlog instead of reading, and a claimed drain
	// that gets its slot asks for the pass.
	r.mu.Lock()
	full := r.full()
	read := r.readInbox || r.backlog
	r.readInbox = false
	if full {
		r.backlog = read
		r.mu.Unlock()
		return
	}
	r.mu.Unlock()
	if read {
		// As many as there are slots, not only free ones: the head of the
		// inbox may be sessions drained here or by other nodes, which
		// the claims pass over.
		var ids []string
		err := r.cfg.Store.Read(ctx, func(tx store.Tx) error {
			var err error
			ids, err = tx.InboxSessions(r.cfg.Concurrency)
			return err
		})
		if err != nil {
			if ctx.Err() == nil {
				r.log.Error("list sessions with work", "err", err)
			}
			return // the poll comes back
		}
		r.mu.Lock()
		// As many as asked for: there may be more, which the pass after the
		// next drain's end reads (rather than the poll).
		r.backlog = len(ids) >= r.cfg.Concurrency
		r.waiting.putFirst(ids)
		r.mu.Unlock()
	}
	for {
		id, ok, full := r.reserveNext()
		if !ok {
			if full && !r.cfg.SoleWriter {
				// The sessions read wait for the next pass to read them again:
				// other nodes may take them meanwhile.
				r.mu.Lock()
				r.waiting = waitQueue{}
				r.backlog = true
				r.mu.Unlock()
			}
			return // a drain that ends asks for the next pass
		}
		// The lease is taken in the worker, not here, so that claims of many
		// sessions share group commits instead of waiting for one another.
		r.wg.Add(1)
		sl := &slot{r: r}
		go r.work(ctx, id, sl, func() (store.Lease, *taken, error) {
			// A claim takes its lease once it has a slot: no session it
			// starts shows running, or holds a lease another node could
			// use, while it waits.
			ok, _ := sl.wait(ctx, "", false)
			r.mu.Lock()
			r.claimWaiting--
			pass := r.passDue() // a pass may have skipped
			r.mu.Unlock()
			if pass {
				r.kick()
			}
			if !ok {
				return store.Lease{}, nil, ctx.Err()
			}
			return r.acquire(ctx, id)
		})
	}
}

// full reports, under mu, whether a claim pass can start no session: as
// many claimed drains wait for a slot as there are slots.
func (r *Runner) full() bool { return r.claimWaiting >= cap(r.sem) }

// passDue reports, under mu, whether a claim pass has work: woken sessions
// wait for it, or a pass found more than it could start.
func (r *Runner) passDue() bool { return r.backlog || r.waiting.len() > 0 }

// reserveNext reserves the session waiting longest; false when none waits or
// as many claimed drains wait for a slot as there are slots (full).
func (r *Runner) reserveNext() (id string, ok, full bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for r.waiting.len() > 0 {
		if r.full() {
			return "", false, true
		}
		id, _ := r.waiting.pop()
		if r.active[id] {
			continue
		}
		r.claimWaiting++
		r.active[id] = true
		return id, true, false
	}
	return "", false, false
}

// reserve marks the session as drained by this process and returns its
// drain's slot: where other nodes may drain sessions, a slot free now, taken
// (with none free, full, the session is left to whichever node has one: a
// lease held here while it waited would keep them from it); the drain of a
// sole writer, or of a node that is alone, waits for its own later. It
// returns nil when the session is drained here already, or full.
func (r *Runner) reserve(id string) (sl *slot, full bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.active[id] {
		return nil, false
	}
	sl = &slot{r: r}
	if !r.pastSlots() {
		if !r.slotNow() { // not while claimed drains wait: they get freed slots first
			return nil, true
		}
		sl.held = true
	}
	r.active[id] = true
	r.waiting.remove(id)
	return sl, false
}

// slotNow takes a drain slot if one is free.
func (r *Runner) slotNow() bool {
	select {
	case r.sem <- struct{}{}:
		metricActive.Inc()
		return true
	default:
		return false
	}
}

// slotFree gives a drain slot back.
func (r *Runner) slotFree() {
	<-r.sem
	metricActive.Dec()
}

// endReservation gives back the reservation's slot, then is unreserve
// followed by the claim pass it asks for.
func (r *Runner) endReservation(id string, sl *slot) {
	sl.free()
	if r.unreserve(id) {
		r.kick()
	}
}

// unreserve ends the session's drain here (which gave its slot back). It
// reports whether a claim pass should follow: the session was woken while
// drained, or a pass is due (passDue).
func (r *Runner) unreserve(id string) (pass bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	delete(r.active, id)
	missed := r.settleMissed(id)
	return missed || r.passDue()
}

// work drains a reserved session after claim took its lease and first item.
// The drain's slot (sl) is held already (an adoption where other nodes may
// drain sessions), or taken by claim or by the drain; it is given back when
// the drain ends.
func (r *Runner) work(ctx context.Context, id string, sl *slot, claim func() (store.Lease, *taken, error)) {
	defer r.wg.Done()
	lease, first, err := claim()
	if err == nil && first != nil && first.item == nil {
		err = errEmpty
	}
	if err == nil {
		r.drain(ctx, lease, first, sl)
	}
	sl.free()
	// The drain took every item committed before its last read of the inbox;
	// one committed after it woke the session while it was drained here.
	if r.unreserve(id) && (err == nil || errors.Is(err, errEmpty) || r.othersWait()) {
		r.kick()
	}
	// Otherwise another worker holds the lease or the store failed: the next
	// poll tries this session again (it waits in memory no more).
}

// othersWait reports whether woken sessions wait for a claim pass.
func (r *Runner) othersWait() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.waiting.len() > 0
}

// errEmpty reports a claim that found the session's inbox already empty.
var errEmpty = errors.New("inbox empty")

// acquire takes the session's lease and, in the same transaction, its first inbox
// item, saving the drain a commit; an item of nil means the inbox was empty and the
// lease is not held. When taking the item fails, it takes the lease alone and
// returns no item, leaving the failure to the drain's retries and give-up.
func (r *Runner) acquire(ctx context.Context, id string) (store.Lease, *taken, error) {
	var lease store.Lease
	first := &taken{}
	errTake := errors.New("take failed")
	var takeErr error
	err := r.cfg.Store.Write(ctx, func(tx store.Tx) error {
		var err error
		if lease, err = tx.LeaseAcquire(id, r.cfg.Holder, r.cfg.LeaseTTL); err != nil {
			return err
		}
		if *first, takeErr = r.take(tx, lease, true); takeErr != nil {
			return errTake
		}
		return nil
	})
	if !errors.Is(err, errTake) {
		return lease, first, err
	}
	r.log.Warn("take first inbox item", "session", id, "err", takeErr)
	err = r.cfg.Store.Write(ctx, func(tx store.Tx) error {
		var err error
		lease, err = tx.LeaseAcquire(id, r.cfg.Holder, r.cfg.LeaseTTL)
		return err
	})
	return lease, nil, err
}

// expireDeadlines times out RTCs whose deadline passed.
func (r *Runner) expireDeadlines(ctx context.Context) {
	var expired []protocol.RTC
	err := r.cfg.Store.Read(ctx, func(tx store.Tx) error {
		var err error
		expired, err = tx.RTCListExpired(tx.Now(), 100)
		return err
	})
	if err != nil {
		if ctx.Err() == nil {
			r.log.Error("list expired rtcs", "err", err)
		}
		return
	}
	for _, rtc := range expired {
		err := r.cfg.Store.Write(ctx, func(tx store.Tx) error { return expireRTC(tx, rtc.ID) })
		if err != nil && ctx.Err() == nil {
			r.log.Error("expire rtc", "rtc", rtc.ID, "err", err)
		} else if err == nil {
			metricExpired.Inc()
		}
	}
}
