package store

import (
	"context"
	"time"

	"github.com/rtcagent/rtcagent/internal/protocol"
)

// TxState is what a transaction of either store holds, whatever its
// database.
type TxState struct {
	// Ctx is the context the transaction's statements run in.
	Ctx context.Context
	// At is the transaction's time (Tx.Now): the one it stamps on what it writes.
	At time.Time
	// Writable is whether the transaction may write: true in Store.Write,
	// false in Store.Read.
	Writable bool
	// Epoch is the database's initial epoch of new streams.
	Epoch string
	// Batch is the Topic updates the transaction makes.
	Batch Batch
	// Rows is the sessions and turns a write transaction need not read again.
	Rows RowCache
	// Wakes is what it queued work for.
	Wakes Wakes
	// Audits is the audit records the RTCs it wrote carry (Commit.Audits).
	Audits []*protocol.AuditRecord
}

// Now is the transaction's time (At).
func (s *TxState) Now() time.Time { return s.At }

// Woken is the sessions the transaction inserted inbox items for (Wakes).
func (s *TxState) Woken() []string { return s.Wakes.All() }
