// Package store defines the durable state of RTC Agent behind one interface,
// Store, whose transactions (Tx, tx.go) are made of one small interface per
// kind of state: a function that needs some of them takes only those. The SQL
// both implementations send is written once (sql.go), and so are the state
// their transactions hold (TxState, txstate.go) and the operations they do
// alike (Shared, shared.go), each implementation giving them a Driver for
// what its database does differently.
//
// Guarantees every implementation must give (checked by storetest):
//   - Store.Write runs fn in one transaction. Everything it writes commits together,
//     including Topic updates (UpdateAppend) and inbox items (InboxInsert): no change
//     without its event, no event without its change, no work without its cause.
//   - Per-user offsets are assigned inside the transaction, start at 1 and grow by
//     exactly 1; the epoch names the timeline and changes only when history is
//     discarded.
//   - After a successful commit, the commit hook (SetCommitHook) is called with the
//     committed updates and the sessions that got inbox work. Within one process
//     the hook sees each user's updates in offset order (what the relay needs);
//     commits of other processes never reach it.
//   - Compare-and-set updates (…Update with an expected status) change nothing and
//     return ErrConflict when the row is not in the expected status.
//   - A session read with SessionGet in a write transaction stays as read until
//     the commit: read-modify-write of a session loses no concurrent change.
//   - A lease has one holder; acquiring an expired lease bumps its fencing token, so
//     LeaseCheck fails for the previous holder.
package store
