package bench

import "runtime/metrics"

// runtimeCounts is what the Go runtime counted in this process so far.
type runtimeCounts struct {
	Objects, Bytes uint64 // heap allocations
	Started        uint64 // goroutines started
}

func ownRuntime() runtimeCounts {
	m := []metrics.Sample{{Name: "/gc/heap/allocs:objects"}, {Name: "/gc/heap/allocs:bytes"}, {Name: "/sched/goroutines-created:goroutines"}}
	metrics.Read(m)
	return runtimeCounts{Objects: m[0].Value.Uint64(), Bytes: m[1].Value.Uint64(), Started: m[2].Value.Uint64()}
}

func (c runtimeCounts) sub(b runtimeCounts) runtimeCounts {
	return runtimeCounts{Objects: c.Objects - b.Objects, Bytes: c.Bytes - b.Bytes, Started: c.Started - b.Started}
}
