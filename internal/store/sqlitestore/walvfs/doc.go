// Package walvfs registers a SQLite VFS (modernc.org/sqlite) that is the
// default "unix" VFS in every respect but one: a transaction's WAL frames are
// gathered in memory as SQLite writes them and reach the file in one system
// call, at its commit frame, instead of two calls a frame (SQLite writes a
// frame's 24-byte header and its page apart). A commit of thirteen pages is
// one pwrite instead of twenty-six.
//
// What it guarantees:
//
//   - Only WAL files are gathered. The database file, journals and the
//     shared-memory index are the unix VFS's, untouched; so are its locks.
//   - Only writes that continue the write before them are gathered: the
//     frames SQLite appends. A write anywhere else (a page or a checksum
//     rewritten in place, the log's header when it starts over) writes the
//     run, then itself, at once, and returns its own error.
//   - A commit is in the file before SQLite makes it visible. The write of a
//     commit frame's page (the page after a header whose database size is not
//     zero) writes the run and returns its error, so a failed write fails the
//     commit before the WAL-index is updated, as a failed frame write does
//     with the unix VFS.
//   - Every other call on a WAL file (read, size, sync, truncate, file
//     control, close) writes the run first, so SQLite never reads, syncs or
//     truncates around it.
//
// Durability is the unix VFS's: the frames of a commit are in the operating
// system before the commit is visible, and synchronous=NORMAL syncs them at
// checkpoints. A process that dies with a run gathered loses frames of a
// transaction that had not committed, which recovery ignores anyway. A run
// reaches the file in writes of at most 128 KiB, the most the unix VFS writes
// in one call: a commit of more than 31 pages of 4 KiB is several writes.
//
// One connection may write a database through this VFS, and no other
// connection or process may write it meanwhile: the frames of a transaction
// that rolled back stay gathered until that connection writes again, and
// would then land on frames another writer committed in between. The SQLite
// store is its file's one writer (its lock file) and writes on one
// connection.
package walvfs
