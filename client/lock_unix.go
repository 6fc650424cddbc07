//go:build unix

package client

import (
	"os"
	"syscall"
)

// lockFile takes an exclusive lock on f without waiting; the lock ends with
// the process.
func lockFile(f *os.File) error {
	return syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
}
