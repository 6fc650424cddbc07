package store

import (
	"context"
	"errors"

	"github.com/rtcagent/rtcagent/internal/protocol"
)

var (
	// ErrNotFound: no such row.
	ErrNotFound = errors.New("store: not found")
	// ErrConflict: a compare-and-set found the row in another state.
	ErrConflict = errors.New("store: conflict")
	// ErrLeaseLost: the caller no longer holds the session lease (fencing).
	ErrLeaseLost = errors.New("store: lease lost")
	// ErrDuplicate: a unique key (such as a message client_id) already exists.
	ErrDuplicate = errors.New("store: duplicate")
)

// Commit is what a committed write transaction produced.
type Commit struct {
	Updates []protocol.Update       // in offset order per user
	Wake    []string                // session ids that got inbox items and whose lease the transaction does not hold
	Audits  []*protocol.AuditRecord // the audit records the RTCs written carry, in order (an RTC's may repeat)
}

// Store is the durable state. Implementations: sqlitestore (embedded default)
// and pgstore.
type Store interface {
	// Write runs fn in a write transaction and commits when fn returns nil.
	// It may run fn more than once (pgstore after a conflict, sqlitestore
	// after a run off its writer that no longer holds) and keeps only the
	// last run's work: each run must start from what it reads in the
	// transaction, and only assign what it captures, never change what it
	// was given or add to what an earlier run left.
	Write(ctx context.Context, fn func(tx Tx) error) error
	// Read runs fn in a read-only snapshot.
	Read(ctx context.Context, fn func(tx Tx) error) error
	// SetCommitHook installs the function called after each commit (see package doc).
	// Set it once, before the first Write.
	SetCommitHook(func(Commit))
	Close() error
}

// LivenessWriter is a store that runs a node's liveness writes (Tx.NodeBeat,
// Tx.NodeLeave) apart from its other work, so that they never wait behind it:
// a record renewed late hands every session of a live node to the others.
// PostgreSQL runs them on a connection of their own; a store without it runs
// them with Write.
type LivenessWriter interface {
	WriteLiveness(ctx context.Context, fn func(tx Tx) error) error
}

// Positions is a store that knows, without a transaction, each user stream's
// position as of its last commit whose hook has run: the embedded store, the
// only writer of its database. Whoever keeps a copy of a stream's entities up
// to date from the hook's updates learns from it, without a transaction,
// where that copy must reach.
type Positions interface {
	// Committed returns the user's stream position after the last commit
	// whose hook was called, when the store knows it.
	Committed(userID string) (StreamPos, bool)
}

// WithAudit appends r's audit record to audits when r carries one: what a
// store's RTC write adds to its Commit's Audits.
func WithAudit(audits []*protocol.AuditRecord, r *protocol.RTC) []*protocol.AuditRecord {
	if a := protocol.AuditRecordOf(r); a != nil {
		return append(audits, a)
	}
	return audits
}
