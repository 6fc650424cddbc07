// Package stack grows a goroutine's stack in one step.
//
// A goroutine starts with a small stack, which the runtime doubles whenever a
// call needs more: each doubling copies the stack and adjusts every frame on
// it, so a short-lived goroutine that goes deep (a command handled off the
// WebSocket read loop, a session's drain: both reach the store's driver)
// pays for several copies, each of a deeper stack, every time. Grow, called
// where such a goroutine starts, takes the stack to its working size while
// it holds a frame or two: one small copy instead. A goroutine that then
// waits long (a drain waiting for a slot) uses little of its stack, and the
// garbage collector shrinks it again.
package stack
