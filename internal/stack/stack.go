package stack

// growBytes is the frame Grow makes room for: with it the stack is 64 KiB,
// more than the deepest path of a command or a drain.
const growBytes = 32 << 10

// at is an index into Grow's frame that the compiler cannot know, so the
// frame is not left out. Nothing writes it.
var at = growBytes - 1

// Grow makes the calling goroutine's stack at least 64 KiB at once. It is
// for goroutines that go deep soon after they start; it does nothing for one
// whose stack is that large already.
//
//go:noinline
func Grow() byte {
	var frame [growBytes]byte
	return frame[at]
}
