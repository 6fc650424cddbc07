// Package sqlitestore implements store.Store on one SQLite file with the pure-Go
// modernc.org/sqlite driver: the embedded default of RTC Agent.
//
// All writes go through one connection under one mutex, so transactions are
// serialised and commit hooks run in commit order. Reads use a separate pool of
// read-only connections that see committed data (WAL mode). synchronous=NORMAL in WAL
// mode keeps every committed transaction across a process crash (SIGKILL); only an
// operating-system crash or power loss can drop the last ones.
package sqlitestore
