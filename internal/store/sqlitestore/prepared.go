package sqlitestore

import (
	"context"
	"database/sql"
	"errors"
	"slices"

	"github.com/rtcagent/rtcagent/internal/store"
)

// A write's function runs first on its caller's goroutine, before it queues
// for the writer (prepare): against the writer's memory of the database
// (stream positions, rows, inbox items, seqs, open calls, leases, resume
// items), noting each value it read there (notes), with its statements
// recorded instead of run (recorder). Under the writer, a prepared write whose
// notes all still hold (no write committed or grouped since changed what it
// read) has its statements run as recorded and takes effect as its run left
// it: the writer holds the database for SQLite's work alone, not for the
// function's Go work (building entities, encoding rows and Topic updates).
//
// A prepared run that needs what the memory cannot answer (a row the writer
// does not know, any query) stops at once (needsWriter), and the write runs
// under the writer as every write did before. So does one whose notes no
// longer hold, and one whose statements do not replay as recorded (a
// compare-and-set that matches no row, a constraint that fails): its
// statements are rolled back and its function runs again under the writer.
// A function may run twice (the PostgreSQL store reruns one after a
// conflict too); what it returns is always from the run that took effect.
// Values drawn from counters (inbox item ids, lease tokens) are drawn at
// once, so a prepared run takes no counter's value another write could take;
// a run that does not take effect leaves a gap, as a rolled-back write does.

// needsWriter is the panic of a prepared run that needs the database: it
// ends the run, and the write runs under the writer.
type needsWriter struct{}

// prepared is a write's run on its caller's goroutine.
type prepared struct {
	t   *tx
	rec *recorder
	err error // what the function returned
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
	rec := &recorder{}
	t := &tx{q: rec, notes: &notes{s: s}, inboxID: &s.inboxID, leaseTab: &s.leases, resumeTab: &s.resumes}
	t.Shared = store.NewShared(driver{t}, store.TxState{Ctx: context.WithoutCancel(ctx), At: s.now().UTC(), Writable: true, Epoch: s.epoch})
	err := fn(t)
	if err == nil {
		err = t.Batch.SealAll(t.writeUpdate)
	}
	return &prepared{t: t, rec: rec, err: err}
}

// settle makes p the write's outcome under the writer, and reports whether
// it did: its notes hold, and its statements ran as recorded (those of a
// function that failed are not run). When they did not, the caller takes
// back what ran and runs the write's function.
func (p *prepared) settle(s *Store) bool {
	if !p.t.notes.hold(s) {
		return false
	}
	if err := p.t.notes.check(s); err != nil {
		p.err = err
		return true
	}
	if p.err != nil {
		return true
	}
	q := counted{s.wc}
	for _, r := range p.rec.stmts {
		res, err := q.ExecContext(p.t.Ctx, r.query, r.args...)
		if err != nil {
			return false
		}
		if r.res.checked {
			if n, err := res.RowsAffected(); err != nil || n != 1 {
				return false
			}
		}
	}
	p.t.q = q
	return true
}

// recorder is a prepared run's querier: it records the statements that
// change the database, and a query ends the run (needsWriter).
type recorder struct{ stmts []recorded }

type recorded struct {
	query string
	args  []any
	res   *recorderResult
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
	res := &recorderResult{}
	r.stmts = append(r.stmts, recorded{query: query, args: slices.Clone(args), res: res})
	return res, nil
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
	s       *Store
	streams map[string]note[streamState]
	rows    map[store.RowKey]note[rowNote]
	inbox   map[string]note[[]store.InboxItem]
	seqs    map[string]note[int64]
	open    map[string]note[[]openRTC]
	leases  map[string]note[leaseRow]
	resumes map[string]note[[]store.InboxItem]
	// checks, in tests, compare what was read with the database, under the
	// writer (checkKnown).
	checks []func(querier) error
}

type note[V any] struct {
	v  V
	ok bool
}

// rowNote is a known row: the writer's (its version: a kept row never
// changes, its change is a new one) and a copy of it.
type rowNote struct {
	p *store.DecodedRow
	v store.DecodedRow
}

// look returns key's value as the run first read it, reading it (read) the
// first time.
func look[K comparable, V any](m *map[K]note[V], key K, read func() (V, bool)) (V, bool) {
	if n, ok := (*m)[key]; ok {
		return n.v, n.ok
	}
	v, ok := read()
	if *m == nil {
		*m = map[K]note[V]{}
	}
	(*m)[key] = note[V]{v, ok}
	return v, ok
}

// hold reports whether every value noted is still what the writer knows
// (the writer calls it, with the group's earlier writes remembered).
func (n *notes) hold(s *Store) bool {
	return held(n.streams, func(u string) (streamState, bool) { st, ok := s.known[u]; return st, ok },
		func(a, b streamState) bool { return a == b }) &&
		held(n.rows, func(k store.RowKey) (rowNote, bool) { p := s.rows.m[k]; return rowNote{p: p}, p != nil },
			func(a, b rowNote) bool { return a.p == b.p }) &&
		held(n.inbox, func(id string) ([]store.InboxItem, bool) { v, ok := s.inbox[id]; return v, ok }, slices.Equal) &&
		held(n.seqs, func(k string) (int64, bool) { v, ok := s.seqs[k]; return v, ok }, func(a, b int64) bool { return a == b }) &&
		held(n.open, func(id string) ([]openRTC, bool) { v, ok := s.open[id]; return v, ok }, slices.Equal) &&
		held(n.leases, func(id string) (leaseRow, bool) { return s.leases.get(id, true), true }, func(a, b leaseRow) bool { return a == b }) &&
		held(n.resumes, func(id string) ([]store.InboxItem, bool) { return s.resumes.get(id, true), true }, slices.Equal)
}

func held[K comparable, V any](m map[K]note[V], cur func(K) (V, bool), equal func(a, b V) bool) bool {
	for k, n := range m {
		v, ok := cur(k)
		if ok != n.ok || ok && !equal(v, n.v) {
			return false
		}
	}
	return true
}

// check runs the checks of checkKnown the run put off (tests).
func (n *notes) check(s *Store) error {
	var errs []error
	for _, c := range n.checks {
		errs = append(errs, c(uncounted(counted{s.wc})))
	}
	return errors.Join(errs...)
}
