// Package sqlitestore implements store.Store on one SQLite file with the pure-Go
// modernc.org/sqlite driver: the embedded default of RTC Agent.
//
// All writes go through one connection, one group at a time, each group run by
// the goroutine of the write that leads it. Writes that arrive while another is
// committing are committed together, each in its own savepoint (group.go): a
// failing write takes back only its own work, and one commit pays the file
// writes of the whole group. A group that panics before its commit, or whose
// write ends its goroutine, is rolled back: the Write that led it panics or
// ends the same way, and its other writes fail. Writes after Close fail with ErrClosed. A group publishes its commit (the commit hook,
// then the positions readers see) after it gave the writer back, in commit
// order, and its writes return once it has. Reads use a separate set of
// read-only connections that see committed data (WAL mode). Every connection keeps
// its statements prepared. The WAL is copied into the database file by a
// checkpoint on its own connection (checkpoint.go), never inside a commit, and it
// starts over once it passes half of Options.WALSize, also under writes that
// never pause: its file stays bounded. Where SQLite has its unix VFS, the
// writer's connection opens the file through walvfs, which writes a commit's
// WAL frames in one system call; the readers and the checkpoint use the unix
// VFS itself.
// The store is its database's only writer (one process): the writer knows the
// stream positions (streams.go) and the sessions, turns and RTCs (rows.go) it
// committed, so a write transaction reads those without a statement, and it
// keeps the leases of its workers in memory (leases.go): they end with the
// process, so they have no row. A turn's resumption, the inbox item that
// the turns already say, is kept the same way (resumes.go) and derived from
// the turns when the writer starts.
// A write's function runs first on its caller's goroutine against that
// memory, its reads noted and its statements recorded (prepared.go); the
// writer then runs only the recorded statements, when every noted read
// still holds and they take effect as recorded, and runs the function
// again itself otherwise. So the writer holds the database for SQLite's
// work, not for the function's Go work (entities, JSON encoding).
// synchronous=NORMAL in WAL mode keeps every committed
// transaction across a process crash (SIGKILL); only an operating-system crash or
// power loss can drop the last ones.
package sqlitestore
