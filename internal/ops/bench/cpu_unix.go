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
// wait (voluntary context switches) so far: for a goroutine to run (a
// thread woken for a hand-off sleeps again once it has nothing left), for
// I/O or for a timer. The Go runtime's monitor thread (sysmon) is among
// them: it sleeps 20 µs at a time while the process is busy and starts
// over each time the process wakes from idle (golang/go#18236), so at one
// session, whose process goes idle at every crossing, it is about half.
func ownSleeps() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return -1
	}
	return int64(ru.Nvcsw)
}
