//go:build unix

package sqlitestore

import (
	"os"
	"syscall"
)

// lockFile takes an exclusive lock on f without waiting; the lock ends when f
// is closed or the process ends.
func lockFile(f *os.File) error {
	return syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
}
