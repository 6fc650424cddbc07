// Package pgstore implements store.Store on PostgreSQL with pgx/v5 (pgxpool), for
// running several RTC Agent nodes on one database. It passes storetest unchanged.
//
// # Schema
//
// The SQLite tables translated (migrations/, applied once per schema under a
// pg_advisory_xact_lock, so nodes starting together do not race): BIGINT offsets
// and identity columns, TIMESTAMPTZ times written from Options.Now, partial
// indexes, and TEXT for JSON so it reads back byte for byte. meta.epoch, the initial
// epoch of every user stream, is picked by the first node and shared by all.
//
// Needs PostgreSQL 11 or later. Connect directly or through a session-mode pooler:
// the schema is set as the search_path startup parameter, and pgx prepares and
// caches statements per server connection.
//
// # Transactions
//
// Write runs fn in one READ COMMITTED transaction; Read in one REPEATABLE READ, READ
// ONLY transaction (one snapshot for all of fn). WriteLiveness is Write on a
// connection of its own (store.LivenessWriter): a node's liveness record is
// renewed in time however busy the pool (pool_max_conns, by default the
// larger of 4 and the CPUs) is. Under READ COMMITTED each
// statement sees the latest commits, so every read-modify-write locks or re-checks
// its row:
//   - offsets: the user's user_streams row is locked (SELECT … FOR UPDATE, created
//     first with INSERT … ON CONFLICT DO NOTHING) by NextOffset, UpdateAppend and
//     StreamReset, and held until commit. A user's writers, on any node, run one
//     after another: offsets +1 each, no gap, commit order = offset order.
//   - compare-and-set: UPDATE … WHERE id AND status; a concurrent writer of the
//     row is waited for and the status re-checked on its committed version.
//     Turns and RTCs (read under the stream lock by every writer) have theirs
//     checked by the server, which fails the transaction when no row matched
//     (pipeline.go), so the update waits to go with the next statement.
//   - client ids: INSERT … ON CONFLICT DO NOTHING on (user_id, client_id), so
//     ErrDuplicate leaves the transaction usable, as in SQLite.
//   - seq = MAX(seq)+1 (turns, messages) is not locked: a concurrent insert of the
//     same seq fails on the unique index and the transaction runs again.
//
// # Exchanges
//
// Writes and server-checked statements wait to go with the next statement that
// needs an answer, or with COMMIT (pipeline.go); the reads a transaction names
// with Prefetch go right after its stream lock (prefetch.go). A transition is
// two exchanges: its reads under the lock, then its writes and COMMIT (a
// call's end that adopts its turn guesses the lease and the inbox item it
// takes from what it read, and checks the guesses at commit: guess.go).
//
// A run of waiting statements of which none writes a table another one reads
// or writes, and none but the last locks rows, goes as one statement of CTEs
// (fuse.go): PostgreSQL runs each of its writes once on one snapshot, which
// for such a run is what running them in turn would do, and each member's
// row comes back in a part of the one result row. A stream lock and the reads
// after it are one statement, whose reads stand only when the lock did not
// wait for another writer of the user (pipeline.go, guardedRead); so are a
// transition's writes (the message, the RTC with its audit record, the turn,
// the inbox, the Topic update). A worker's lease check goes in the stream
// lock's statement, taken before the stream (streamLockSQL): a step is four
// statements (BEGIN, the lease check with the stream lock and its reads,
// writes, COMMIT).
//
// # Rows kept decoded
//
// A store keeps the sessions, turns and RTCs it last wrote or read, each with
// its stored text and what that decodes to (decoded.go): a read whose text is
// the same gets a copy of the value instead of a decode, and a read whose
// text differs (another node's write, a write of this one that rolled back)
// is decoded. Nothing is trusted but the text the database returned.
//
// # Retries: fn must be re-runnable
//
// On a serialisation failure (40001), a deadlock (40P01; e.g. two transactions
// locking two users' streams in opposite orders) or a lost seq race, Write rolls
// back and runs fn again in a new transaction, up to 6 times, after a random pause.
// fn must therefore be re-runnable: each run must start from the database alone and
// only (re-)assign captured results, never accumulate them across runs (the
// closures in api, core and session do so; keep it that way). A commit that fails
// because the connection died is returned as an error, although it may have
// committed; callers retry through idempotency keys (client_id, compare-and-set).
//
// # Commit hook
//
// After a commit the hook gets the transaction's updates and woken sessions, before
// Write returns. Within this process, each user's updates reach the hook in offset
// order, even when transactions of that user commit concurrently on different
// connections: the post-commit calls are sequenced per user (sequencer.go), while
// transactions of different users never wait for each other. Across users, hook
// order is not commit order; the relay only needs per-user order. The hook must be
// quick and must not call Write (it would wait for itself).
//
// Across processes nothing holds: other nodes' commits never reach this hook. Their
// updates reach clients through the other node's relay, and a publication lost or
// reordered between nodes is healed by the realtime layer from the stream (offsets
// and epoch in the database; see docs/architecture.md).
//
// Inbox work does cross processes as a hint: a transaction that woke sessions
// whose leases it neither took nor checked, or gave a lease back with work
// left, notifies their ids (pg_notify, sent with COMMIT, delivered only if it
// commits), and Listen hands every node's notifications to its runner
// (notify.go). A notification may be lost (a
// listener reconnecting); the runner's poll is the backstop.
//
// # Leases and the claim protocol
//
//  1. InboxSessions (any transaction, no locks) lists candidates: the head of the
//     ready queue (migration 007: sessions whose work was queued by a commit
//     that did not hold their lease, or whose lease was given back with work
//     left; taken off by the claim and by the holder's finished items, at the
//     gen the statement saw), leases that expired without being given back,
//     and the leases of nodes whose liveness record expired. It reads no
//     session another node holds. A candidate may be held or have no work
//     left by the time it is used: the claim finds out. Open puts sessions
//     with work and no live lease that are not on the queue on it (work
//     queued by a node of an earlier release during an upgrade).
//  2. LeaseAcquire is the claim: one update that locks the lease row (SKIP
//     LOCKED) and takes it only when free, expired, held by a node whose
//     liveness record (nodes row, NodeBeat) expired, or already the caller's,
//     bumping the token on every new acquisition; a session's first lease is
//     inserted. A row another transaction has locked is busy: ErrConflict at
//     once. Of two nodes racing, one wins; the loser's work is its holder's.
//  3. Every worker write starts with LeaseCheck, which share-locks the lease row
//     until commit (checked by the server, sent with the next statement): the row is busy for acquirers until the checked transaction
//     ends, so a holder's checked writes commit before anyone else holds the
//     lease, and once another holder committed its acquisition the stale
//     holder's check fails.
//
// # Lock order
//
// A session's lease row before its user's stream row. The worker checks its
// lease first and then writes (locking the stream); a claim acquires and then
// takes work (locking the stream). An API write locks the stream first and
// adopts the work it queued last, but LeaseAcquire never waits for a lease row,
// so no transaction holding a stream waits for a lease: no deadlock between the
// two (TestLockOrderAdoptAndWorker). The ready queue's rows come last: a
// transaction writes them with its commit (ready.go).
//
// Expiry compares Options.Now of different nodes: their clocks must agree to well
// within the lease TTL.
package pgstore
