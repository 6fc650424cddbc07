//go:build !unix

package sqlitestore

import "os"

// lockFile does nothing where flock is missing: one writer process per
// database is then the operator's to keep (the writer's memory, leases
// included, is the database's only while it is).
func lockFile(*os.File) error { return nil }
