// Package core holds the state transitions of RTC Agent that the API and the
// session worker share. Each function runs inside a store transaction it is given,
// so the change, its Topic updates and any inbox work commit together.
//
// Rules made true here:
//   - every entity write goes with its update (emit), and the entity carries the
//     offset of that update;
//   - an RTC reaches a terminal status only through a compare-and-set on its
//     previous status; the call that ends it decides, in the same transaction,
//     whether the next queued RTC of the turn is delivered or the turn resumes;
//   - ending a turn ends its open RTCs, closes its streaming messages and queues
//     the session's next turn;
//   - a session is read, in a write transaction, as it stands until the commit
//     (store.Tx.SessionGet), so its read-modify-writes lose no concurrent change;
//   - a fork, like a message, with a client_id already used returns the first
//     result and writes nothing.
package core
