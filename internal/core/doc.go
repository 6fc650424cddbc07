// Package core holds the transitions of a session that the API and the
// session worker share, outside a turn's tool calls: sending a message (which
// queues a turn), retrying, forking, moving a session to another device,
// switching its work mode, compacting it; and the pieces every transition
// uses: the caller's identity and rights, new ids, inbox item kinds, and the
// Emit functions. The life of a turn and its calls is package lifecycle.
// Each function runs inside a store transaction it is given, so the change,
// its Topic updates and any inbox work commit together.
//
// Rules made true here:
//   - every entity write goes with its update (emit), and the entity carries the
//     offset of that update;
//   - a session is read, in a write transaction, as it stands until the commit
//     (store.Tx.SessionGet), so its read-modify-writes lose no concurrent change;
//   - a fork, like a message, with a client_id already used returns the first
//     result and writes nothing.
package core
