package stack

import (
	"runtime/debug"
	"testing"
	"unsafe"
)

// deep recurses n times with a frame of about 1 KiB each.
//
//go:noinline
func deep(n int) byte {
	var frame [1 << 10]byte
	if n == 0 {
		return frame[at%len(frame)]
	}
	return deep(n-1) + frame[0]
}

// moves reports whether a goroutine's stack moved (was copied to a larger
// one) while it called 12 KiB deep, after Grow when grow is set: the address
// of a local variable, kept as a number the runtime does not adjust, changes
// when the stack is copied.
func moves(grow bool) bool {
	out := make(chan bool)
	go func() {
		if grow {
			Grow()
		}
		var local byte
		before := uintptr(unsafe.Pointer(&local))
		deep(12)
		out <- uintptr(unsafe.Pointer(&local)) != before
	}()
	return <-out
}

// After Grow a goroutine goes deep without its stack being copied again;
// without it, the same calls copy it.
func TestGrowTakesTheStackToItsWorkingSizeAtOnce(t *testing.T) {
	// No garbage collection meanwhile: it may shrink a stack that uses
	// little of itself, between Grow and the deep call.
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	if !moves(false) {
		t.Skip("the runtime started the goroutine with a stack deep enough already")
	}
	if moves(true) {
		t.Fatal("the stack was copied after Grow")
	}
}
