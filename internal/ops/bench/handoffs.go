package bench

import (
	"bufio"
	"cmp"
	"errors"
	"io"
	"os"
	"runtime/trace"
	"slices"
	"strings"

	xtrace "golang.org/x/exp/trace"
)

// Handoffs is what the Go runtime's execution trace of a window says about
// the hand-offs between goroutines, per round trip: counts that do not depend
// on how busy the machine is, unlike the time each one costs.
type Handoffs struct {
	// Runnable is how many times a goroutine waiting was made runnable: by
	// another (a channel, a lock, a wait group) or by the runtime (a timer,
	// the network poller).
	Runnable float64
	// Started is how many goroutines were started.
	Started float64
	// Elsewhere is how many of those made runnable or started ran first on
	// another processor than the one they were readied on (or readied with
	// none, as the runtime's monitor thread does): work another thread took.
	Elsewhere float64
	// ProcsWoken is how many times a processor went from idle to running
	// (for a goroutine readied, or one back from a long system call).
	ProcsWoken float64
	// By lists who made goroutines runnable or started them, most first:
	// the first frames of the readier's stack outside the runtime.
	By []Readier
}

// Readier is a place in the code that readies goroutines, with how many a
// round trip it readied.
type Readier struct {
	Where string
	Count float64
}

// windowTrace records the Go runtime's execution trace of a point's window
// in a temporary file, out of the heap the window's counts measure.
type windowTrace struct {
	f       *os.File
	stopped bool
}

func startWindowTrace() (*windowTrace, error) {
	f, err := os.CreateTemp("", "rtcagent-bench-*.trace")
	if err != nil {
		return nil, err
	}
	if err := trace.Start(f); err != nil {
		f.Close()
		os.Remove(f.Name())
		return nil, err
	}
	return &windowTrace{f: f}, nil
}

// stop ends the trace at the window's end; it may be called again.
func (w *windowTrace) stop() {
	if !w.stopped {
		w.stopped = true
		trace.Stop()
	}
}

// count counts the trace's hand-offs per round trip of the window.
func (w *windowTrace) count(roundTrips int) (*Handoffs, error) {
	w.stop()
	if _, err := w.f.Seek(0, io.SeekStart); err != nil {
		return nil, err
	}
	return countHandoffs(bufio.NewReader(w.f), roundTrips)
}

// close stops the trace if it still runs and removes its file: every path
// out of a point that started one calls it.
func (w *windowTrace) close() {
	w.stop()
	w.f.Close()
	os.Remove(w.f.Name())
}

// countHandoffs reads an execution trace and counts its hand-offs per round
// trip; By keeps the readiers of at least a tenth of a hand-off a round trip.
func countHandoffs(r io.Reader, roundTrips int) (*Handoffs, error) {
	if roundTrips <= 0 {
		return nil, errors.New("bench: no round trip to count hand-offs by")
	}
	tr, err := xtrace.NewReader(r)
	if err != nil {
		return nil, err
	}
	readiedOn := map[xtrace.GoID]xtrace.ProcID{}
	by := map[string]int{}
	var runnable, started, elsewhere, woken int
	for {
		ev, err := tr.ReadEvent()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		if ev.Kind() != xtrace.EventStateTransition {
			continue
		}
		st := ev.StateTransition()
		switch st.Resource.Kind {
		case xtrace.ResourceProc:
			if from, to := st.Proc(); from == xtrace.ProcIdle && to == xtrace.ProcRunning {
				woken++
			}
		case xtrace.ResourceGoroutine:
			from, to := st.Goroutine()
			g := st.Resource.Goroutine()
			switch {
			case to == xtrace.GoRunnable && from == xtrace.GoNotExist:
				started++
			case to == xtrace.GoRunnable && from == xtrace.GoWaiting:
				runnable++
			case to == xtrace.GoRunning:
				if p, ok := readiedOn[g]; ok && p != ev.Proc() {
					elsewhere++
				}
				delete(readiedOn, g)
				continue
			default:
				continue
			}
			readiedOn[g] = ev.Proc()
			by[readier(ev.Stack(), from == xtrace.GoNotExist)]++
		}
	}
	n := float64(roundTrips)
	h := &Handoffs{Runnable: float64(runnable) / n, Started: float64(started) / n, Elsewhere: float64(elsewhere) / n, ProcsWoken: float64(woken) / n}
	for where, c := range by {
		if c*10 >= roundTrips {
			h.By = append(h.By, Readier{Where: where, Count: float64(c) / n})
		}
	}
	slices.SortFunc(h.By, func(a, b Readier) int {
		return cmp.Or(cmp.Compare(b.Count, a.Count), strings.Compare(a.Where, b.Where))
	})
	return h, nil
}

// readier names the code that readied or started a goroutine: the first two
// frames of its stack outside the runtime, without their module paths.
func readier(st xtrace.Stack, start bool) string {
	var names []string
	for f := range st.Frames() {
		fn := f.Func
		if strings.HasPrefix(fn, "runtime.") || strings.HasPrefix(fn, "internal/") || strings.HasPrefix(fn, "sync.") {
			continue
		}
		if i := strings.LastIndex(fn, "/"); i >= 0 {
			fn = fn[i+1:]
		}
		names = append(names, fn)
		if len(names) == 2 {
			break
		}
	}
	where := strings.Join(names, " < ")
	if where == "" {
		where = "the runtime (timers, network poller, collector)"
	}
	if start {
		where = "go " + where
	}
	return where
}
