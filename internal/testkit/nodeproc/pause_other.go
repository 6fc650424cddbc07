//go:build !unix

package nodeproc

import (
	"errors"
	"os"
)

// errNoStop: without SIGSTOP a process cannot be paused, so a node's pause
// is not simulated (Pause reports false).
var errNoStop = errors.New("nodeproc: pausing a process needs SIGSTOP")

func stop(*os.Process) error { return errNoStop }

func cont(*os.Process) error { return errNoStop }
