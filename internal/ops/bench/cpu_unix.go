//go:build unix

package bench

import (
	"syscall"
	"time"
)

// ownCPU is the CPU time (user + system) this process used so far.
func ownCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// ownSleeps is how many times a thread of this process gave up its CPU to
// wait (voluntary context switches) so far: a goroutine handed to a parked
// thread costs one when that thread has nothing left to run.
func ownSleeps() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return -1
	}
	return int64(ru.Nvcsw)
}
