package sqlitestore

import (
	"context"
	"database/sql"
	"slices"
	"sync"

	"github.com/rtcagent/rtcagent/internal/store"
)

// A write's function runs first on its caller's goroutine, before it queues
// for the writer (prepare): against the writer's memory of the database
// (stream positions, rows, inbox items, seqs, open calls, leases, resume
// items, streaming messages, queued turns), noting each value it read there (notes), with its statements
// recorded instead of run (recorder). Under the writer, a prepared write whose
// notes all still hold (no write committed or grouped since changed what it
// read) has its statements run as recorded and takes effect as its run left
// it: the writer holds the database for SQLite's work alone, not for the
// function's Go work (building entities, encoding rows and Topic updates).
//
// A prepared run that needs what the memory cannot answer (a row the writer
// does not know, any query) stops at once (needsWriter), and the write runs
// under the writer as every write did before. So does one whose notes no
// longer hold, one whose statements do not replay as recorded (a
// compare-and-set that matches no row, a constraint that fails) and one
// that failed after recording a statement: its statements are rolled back
// and its function runs again under the writer.
// A function may run twice (the PostgreSQL store reruns one after a
// conflict too); what it returns is always from the run that took effect.
// Values drawn from counters (inbox item ids, lease tokens) are drawn at
// once, so a prepared run takes no counter's value another write could take;
// a run that does not take effect leaves a gap, as a rolled-back write does.

// needsWriter is the panic of a prepared run that needs the database: it
// ends the run, and the write runs under the writer.
type needsWriter struct{}

// prepared is a write's run on its caller's goroutine: its transaction,
// what it recorded and noted, in one allocation.
type prepared struct {
	tx    tx
	rec   recorder
	notes notes
	err   error // what the function returned
}

// preparedRuns keeps prepared runs for the next writes, zeroed (done): a run
// is about 1.7 KB, most of it the first notes and statements kept inline.
var preparedRuns = sync.Pool{New: func() any { return new(prepared) }}

// done gives p back for another write, once its Write returned: nothing
// refers into p then (the group took what it publishes by value or in
// slices of their own).
func (p *prepared) done() {
	*p = prepared{}
	preparedRuns.Put(p)
}

// prepare runs fn as a prepared write, or returns nil when it must run under
// the writer: the store has not written yet (its memory is not loaded), or
// the run needed the database or panicked (the writer runs it again, and a
// panic of its own happens there).
func (s *Store) prepare(ctx context.Context, fn func(store.Tx) error) (p *prepared) {
	if !s.ready.Load() {
		return nil
	}
	defer func() {
		if recover() != nil {
			p = nil
		}
	}()
	p = preparedRuns.Get().(*prepared)
	p.notes.init()
	p.rec.stmts = p.rec.first[:0]
	p.rec.results = p.rec.firstResults[:0]
	t := &p.tx
	s.writeTx(ctx, t, &p.rec)
	t.notes = &p.notes
	if p.err = fn(t); p.err == nil {
		p.err = t.Batch.SealAll(t.writeUpdate)
	}
	return p
}

// settle makes p the write's outcome under the writer, and reports whether
// it did: its notes hold, and its statements ran as recorded (those of a
// function that failed are not run). When they did not, the caller takes
// back what ran and runs the write's function.
func (p *prepared) settle(s *Store) bool {
	n := p.tx.notes
	// A failed run's outcome, like a run's that did not insert with a key
	// it took for unused, may rest on that key being unused.
	if !n.hold(s) || len(n.keys) > 0 && (p.err != nil || !n.keysInserted()) {
		return false
	}
	if p.err != nil && p.rec.changed() {
		// A failed run's error is its outcome only if it changed nothing
		// before failing: a statement it took to take effect (an insert, a
		// compare-and-set) might not have, and the function would then
		// have failed otherwise.
		return false
	}
	q := counted{s.wc}
	for _, r := range p.rec.stmts {
		if r.check != nil {
			// Tests: what the run read of the memory against the database
			// as the run saw it, its statements before the read run.
			if err := r.check(uncounted(q)); err != nil {
				p.err = err
				return true
			}
			continue
		}
		res, err := q.ExecContext(p.tx.Ctx, r.query, r.args...)
		if err != nil {
			return false
		}
		if r.res.checked {
			if n, err := res.RowsAffected(); err != nil || n != 1 {
				return false
			}
		}
	}
	p.tx.q = q
	return true
}

// recorder is a prepared run's querier: it records the statements that
// change the database, and a query ends the run (needsWriter). A
// statement's arguments are built for it and not changed after it is sent,
// so they are kept as they are. The first few statements and results are
// kept in the recorder itself.
type recorder struct {
	stmts        []recorded
	results      []recorderResult // a full slice is left for a new one: results are pointed to
	first        [6]recorded
	firstResults [6]recorderResult
}

type recorded struct {
	query string
	args  []any
	res   *recorderResult
	// check, in place of a statement: a check of checkKnown, put off to
	// its place among the statements (tests).
	check func(querier) error
}

// recorderResult is a recorded statement's result as the prepared run sees
// it: one row changed. When the run asked (a compare-and-set), the replay
// checks that one did.
type recorderResult struct{ checked bool }

func (r *recorderResult) LastInsertId() (int64, error) { panic(needsWriter{}) }

func (r *recorderResult) RowsAffected() (int64, error) {
	r.checked = true
	return 1, nil
}

func (r *recorder) ExecContext(_ context.Context, query string, args ...any) (sql.Result, error) {
	if len(r.results) == cap(r.results) {
		r.results = make([]recorderResult, 0, 2*cap(r.results))
	}
	r.results = r.results[:len(r.results)+1]
	res := &r.results[len(r.results)-1]
	r.stmts = append(r.stmts, recorded{query: query, args: args, res: res})
	return res, nil
}

// changed reports whether the run recorded a statement (not only checks).
func (r *recorder) changed() bool {
	return slices.ContainsFunc(r.stmts, func(s recorded) bool { return s.check == nil })
}

// putOff records a check of checkKnown (tests), to run under the writer
// where the run made it.
func (r *recorder) putOff(check func(querier) error) {
	r.stmts = append(r.stmts, recorded{check: check})
}

func (r *recorder) QueryContext(context.Context, string, ...any) (*sql.Rows, error) {
	panic(needsWriter{})
}

func (r *recorder) QueryRowContext(context.Context, string, ...any) *sql.Row {
	panic(needsWriter{})
}

// notes are the values a prepared run read from the writer's memory, each
// as it first read it (a key absent noted too): the run holds while each is
// still what the writer knows. Reads of the memory take the store's mem
// lock, which the writer takes to change it.
type notes struct {
	streams noted[string, streamState]
	rows    noted[store.RowKey, rowNote]
	inbox   noted[string, []store.InboxItem]
	seqs    noted[string, int64]
	open    noted[string, []openRTC]
	leases  noted[string, leaseRow]
	resumes noted[string, []store.InboxItem]
	// streaming and msgSeqs: streaming.go.
	streaming noted[string, []streamingMsg]
	msgSeqs   noted[string, int64]
	queued    noted[string, []queuedTurn] // queued.go
	// keys are the messages' client keys the run looked up
	// (MessageByClientID), each with the message it then inserted with it.
	keys []clientKey
	// The first notes of each kind are kept here: a run reads few.
	firstStreams [1]keyNote[string, streamState]
	firstRows    [4]keyNote[store.RowKey, rowNote]
	firstSeqs    [2]keyNote[string, int64]
	firstOpen    [4]keyNote[string, []openRTC]
	firstLeases  [1]keyNote[string, leaseRow]
	firstItems   [2]keyNote[string, []store.InboxItem] // inbox, then resumes
}

// noted are the notes of one kind, by key: a run reads few of each, so
// they are a list, searched in order.
type noted[K comparable, V any] []keyNote[K, V]

type keyNote[K comparable, V any] struct {
	k K
	v V
	// ok: the memory held the key (a key it did not hold is noted too).
	ok bool
}

// clientKey is a message's client key a prepared run took for unused, and
// the stored message it inserted with it (nil until it did).
type clientKey struct {
	user, key string
	data      []byte
}

// key returns the stored message the run inserted with the key, if it did,
// noting the key as taken for unused otherwise.
func (n *notes) key(user, key string) ([]byte, bool) {
	for _, k := range n.keys {
		if k.user == user && k.key == key {
			return k.data, k.data != nil
		}
	}
	n.keys = append(n.keys, clientKey{user: user, key: key})
	return nil, false
}

// keyUsed notes the message the run inserted with the key.
func (n *notes) keyUsed(user, key string, data []byte) {
	for i, k := range n.keys {
		if k.user == user && k.key == key {
			n.keys[i].data = data
			return
		}
	}
	n.keys = append(n.keys, clientKey{user: user, key: key, data: data})
}

// keysInserted reports whether the run inserted a message with every key it
// took for unused, so that the unique index checks each under the writer
// (a replay's failed statement sends the write to run there again).
func (n *notes) keysInserted() bool {
	for _, k := range n.keys {
		if k.data == nil {
			return false
		}
	}
	return true
}

// init points the notes at the first ones kept in n.
func (n *notes) init() {
	n.streams = n.firstStreams[:0]
	n.rows = n.firstRows[:0]
	n.seqs = n.firstSeqs[:0]
	n.open = n.firstOpen[:0]
	n.leases = n.firstLeases[:0]
	n.inbox = n.firstItems[:0:1]
	n.resumes = n.firstItems[1:1]
}

// rowNote is a known row: the writer's (its version: a kept row's data
// never changes, its change is a new one; only its decoded value may be set
// once) and a copy of it.
type rowNote struct {
	p *store.DecodedRow
	v store.DecodedRow
}

// look returns key's value as the run first read it, reading it (read) the
// first time.
func look[K comparable, V any](l *noted[K, V], key K, read func() (V, bool)) (V, bool) {
	for _, n := range *l {
		if n.k == key {
			return n.v, n.ok
		}
	}
	v, ok := read()
	*l = append(*l, keyNote[K, V]{k: key, v: v, ok: ok})
	return v, ok
}

// hold reports whether every value noted is still what the writer knows
// (the writer calls it, with the group's earlier writes remembered).
func (n *notes) hold(s *Store) bool {
	same := func(a, b int64) bool { return a == b }
	return held(n.streams, in(s.known), func(a, b streamState) bool { return a == b }) &&
		held(n.rows, func(k store.RowKey) (rowNote, bool) { p := s.rows.m[k]; return rowNote{p: p}, p != nil },
			func(a, b rowNote) bool { return a.p == b.p }) &&
		held(n.inbox, in(s.inbox), slices.Equal) &&
		held(n.seqs, in(s.seqs), same) &&
		held(n.open, in(s.open), slices.Equal) &&
		held(n.leases, func(id string) (leaseRow, bool) { return s.leases.get(id, true), true }, func(a, b leaseRow) bool { return a == b }) &&
		held(n.resumes, func(id string) ([]store.InboxItem, bool) { return s.resumes.get(id, true), true }, slices.Equal) &&
		held(n.streaming, in(s.streaming), sameStreaming) &&
		held(n.msgSeqs, in(s.msgSeqs), same) &&
		held(n.queued, in(s.queued), slices.Equal)
}

// in is the look-up of m.
func in[K comparable, V any, M ~map[K]V](m M) func(K) (V, bool) {
	return func(k K) (V, bool) {
		v, ok := m[k]
		return v, ok
	}
}

func held[K comparable, V any](l noted[K, V], cur func(K) (V, bool), equal func(a, b V) bool) bool {
	for _, n := range l {
		v, ok := cur(n.k)
		if ok != n.ok || ok && !equal(v, n.v) {
			return false
		}
	}
	return true
}
