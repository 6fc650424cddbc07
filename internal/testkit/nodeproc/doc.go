// Package nodeproc runs server nodes as child processes on loopback: it starts
// one and waits until its /readyz answers, starts it again when it exits while
// starting (as a supervisor would), and stops it gracefully (SIGTERM), kills it
// (SIGKILL) or pauses it (SIGSTOP, SIGCONT). The chaos suite and the load tool's
// `-nodes` run share it.
//
// A Proc never outlives the caller's handling: Stop and Kill wait until the
// process was reaped.
package nodeproc
