// Package cancels keeps the cancel function of each running piece of work (a
// tool call, a model stream) by its id, so that another goroutine can cancel it
// when the work ends elsewhere (a stop, a call ended on the server). A stop
// (Set.Stop) also reaches work that registers after it. It is safe for
// concurrent use.
package cancels
