// Package stack grows a goroutine's stack in one step.
//
// A goroutine starts with a small stack, which the runtime doubles whenever a
// call needs more: each doubling copies the stack and adjusts every frame on
// it, so a short-lived goroutine that goes deep (a command handled off the
// WebSocket read loop, a session's drain: both reach the store's driver)
// pays for several copies, each of a deeper stack, every time. The runtime
// sizes a new stack to the frame that did not fit, so Grow, called where such
// a goroutine starts its deep work, takes the stack to its working size with
// one large frame while it holds a few small ones: one small copy instead.
// Call it after any long wait, not before: a goroutine that uses a quarter of
// its stack or less has it halved at each garbage collection.
package stack
