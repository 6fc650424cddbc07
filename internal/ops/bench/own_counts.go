package bench

import "runtime/metrics"

// ownCounts is what this process counted of itself so far: its Go runtime's
// counts and its threads' sleeps.
type ownCounts struct {
	Objects, Bytes uint64 // heap allocations
	Started        uint64 // goroutines started
	// Sleeps is how many times a thread gave up its CPU to wait (ownSleeps);
	// -1 when not measured.
	Sleeps int64
}

func readOwn() ownCounts {
	m := []metrics.Sample{{Name: "/gc/heap/allocs:objects"}, {Name: "/gc/heap/allocs:bytes"}, {Name: "/sched/goroutines-created:goroutines"}}
	metrics.Read(m)
	return ownCounts{Objects: m[0].Value.Uint64(), Bytes: m[1].Value.Uint64(), Started: m[2].Value.Uint64(), Sleeps: ownSleeps()}
}

// sub is what was counted since b.
func (c ownCounts) sub(b ownCounts) ownCounts {
	d := ownCounts{Objects: c.Objects - b.Objects, Bytes: c.Bytes - b.Bytes, Started: c.Started - b.Started, Sleeps: -1}
	if c.Sleeps >= 0 && b.Sleeps >= 0 {
		d.Sleeps = c.Sleeps - b.Sleeps
	}
	return d
}
