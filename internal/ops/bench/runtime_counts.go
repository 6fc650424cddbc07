package bench

import "runtime/metrics"

// runtimeCounts is what the Go runtime counted in this process so far.
type runtimeCounts struct {
	Objects, Bytes uint64 // heap allocations
	Started        uint64 // goroutines started
	// Woken is how many times a goroutine ran again after it stopped to wait,
	// yielded or was preempted: an estimate, as the runtime times one such
	// wait in eight (its scheduling latencies) and counts only those.
	Woken uint64
}

// wakeSampling is how many of a goroutine's waits the runtime passes over for
// each one it times (runtime's gTrackingPeriod).
const wakeSampling = 8

func ownRuntime() runtimeCounts {
	m := []metrics.Sample{{Name: "/gc/heap/allocs:objects"}, {Name: "/gc/heap/allocs:bytes"},
		{Name: "/sched/goroutines-created:goroutines"}, {Name: "/sched/latencies:seconds"}}
	metrics.Read(m)
	c := runtimeCounts{Objects: m[0].Value.Uint64(), Bytes: m[1].Value.Uint64(), Started: m[2].Value.Uint64()}
	for _, n := range m[3].Value.Float64Histogram().Counts {
		c.Woken += n * wakeSampling
	}
	return c
}

func (c runtimeCounts) sub(b runtimeCounts) runtimeCounts {
	return runtimeCounts{Objects: c.Objects - b.Objects, Bytes: c.Bytes - b.Bytes, Started: c.Started - b.Started, Woken: c.Woken - b.Woken}
}
