package bench

import (
	"time"

	"golang.org/x/sys/windows"
)

// ownCPU is the CPU time (user + kernel) this process used so far.
func ownCPU() time.Duration {
	var created, exited, kernel, user windows.Filetime
	if err := windows.GetProcessTimes(windows.CurrentProcess(), &created, &exited, &kernel, &user); err != nil {
		return 0
	}
	ticks := func(t windows.Filetime) int64 { return int64(t.HighDateTime)<<32 | int64(t.LowDateTime) }
	return time.Duration(ticks(kernel)+ticks(user)) * 100 // Filetime counts 100 ns
}

// ownSleeps is not measured on Windows.
func ownSleeps() int64 { return -1 }
