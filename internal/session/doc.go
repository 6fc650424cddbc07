// Package session runs the per-session workers of RTC Agent.
//
// Work for a session is a row in its durable inbox, written in the transaction that
// caused it. A Runner claims sessions with inbox work, takes the session's lease
// (holder, fencing token, expiry), and drains the inbox while holding it
// (hold-lock), renewing the lease well before it expires. Every write a worker makes
// checks the lease first, so an owner that lost its lease cannot change anything.
// The lease is released when the inbox is empty, in particular while a turn waits
// for the browser: nothing holds a lease across a wait.
//
// A write of the API that gives sessions work (a message, a result, a stop) also
// claims them for this process in its own transaction (Adopt), when no worker here
// drains them and their lease is free: their work starts right after the commit,
// with no claim transaction of its own. Otherwise wake-ups are hints (Wake, called
// after commits); a slow poll of the inbox is the backstop, so a lost hint costs
// latency, never progress.
//
// A process drains Config.Concurrency sessions at once. Past them a drain waits
// in memory for a slot, drains getting slots in the order they asked: an
// adopted one before its model step or server call, its lease renewed
// meanwhile (a stop of its turn ends the wait), a claimed one before it takes
// its lease. Where other nodes may drain sessions, a write adopts only with a
// slot free here (a lease held while it waited would keep the session from a
// node with one), and a claim pass starts no more drains waiting than there
// are slots, none holding a lease: the rest is left in the inbox to
// whichever node has a slot.
// When this process is the store's only writer (Config.SoleWriter, embedded
// SQLite), no other node could drain a session: a write adopts its sessions
// however many wait, and a claim pass starts the sessions its commits woke
// without reading the inbox. A node of a cluster whose liveness renewal finds
// no other node alive adopts past its slots too; once it sees one, its drains
// waiting with a lease give the lease back, so a node with a slot free takes
// their sessions (alone.go). An inbox item is deleted in the transaction that
// completes its work, so a crash re-runs the item on the next owner, which resumes
// from the durable state. On start only sessions whose lease expired, or whose
// holder's liveness record expired, are taken over.
//
// The Runner renews a liveness record of its own (store.Tx.NodeBeat) every third
// of Config.NodeTTL. Leases last Config.LeaseTTL while their holder's record
// lives; when a process dies, its record lapses and the other nodes' poll takes
// its sessions over within the node TTL plus a poll. A process that only stalled
// and then writes again is turned away by the fencing token (LeaseCheck).
//
// Before a model step the runner summarises the older history when the context
// passed the compaction threshold; the summary is a message written with the
// turn's usage in one transaction, the stored history is never rewritten, and a
// step reads only the latest summary and what follows it. A compact turn runs that
// summary alone.
//
// The text of a streaming message lives in the partial buffer (Partials) until a
// commit closes the message: the step's own commit, a stop or failure of the turn
// (lifecycle.EndTurn closes its streaming messages), or the next owner's cleanup. No
// store transaction reads the buffer (Redis in a cluster): a stop reads the text
// ahead (LiveText), and after the commit what the buffer holds beyond the text
// written is settled into the message (SettlePartials). The buffer is dropped only
// after such a commit, so a rolled-back attempt or a lost lease leaves the text to
// whoever closes the message next.
//
// The Runner also enforces RTC deadlines: expired RTCs become timeout and their turn
// resumes.
package session
