//go:build unix

package nodeproc

import (
	"os"
	"syscall"
)

// stop stops p (SIGSTOP) until cont lets it go on (SIGCONT).
func stop(p *os.Process) error { return p.Signal(syscall.SIGSTOP) }

func cont(p *os.Process) error { return p.Signal(syscall.SIGCONT) }
