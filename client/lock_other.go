//go:build !unix

package client

import "os"

// lockFile does nothing where flock is not available: one process per journal
// is then the caller's duty.
func lockFile(*os.File) error { return nil }
