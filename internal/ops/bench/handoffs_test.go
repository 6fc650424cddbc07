package bench

import (
	"bytes"
	"os"
	"testing"
)

// Two goroutines that pass a value back and forth ready each other once a
// pass: the trace counts two goroutines made runnable a round of both, and
// names the function that passes.
func TestCountHandoffs(t *testing.T) {
	wt, err := startWindowTrace()
	if err != nil {
		t.Skip("the tracer is in use:", err)
	}
	defer wt.close()
	const rounds = 1000
	ping, pong, done := make(chan int), make(chan int), make(chan struct{})
	go func() {
		defer close(done)
		for v := range ping {
			pong <- v
		}
	}()
	passBackAndForth(ping, pong, rounds)
	close(ping)
	<-done
	wt.stop()
	h, err := wt.count(rounds)
	if err != nil {
		t.Fatal(err)
	}
	if h.Runnable < 1.9 || h.Runnable > 2.2 || h.Started > 0.01 || h.Elsewhere > h.Runnable {
		t.Fatalf("hand-offs %+v, want about 2 made runnable a round and no goroutine started a round", h)
	}
	// Each side readies the other once a round: the echoing goroutine and
	// passBackAndForth, called by the test. Both count about 1, so either
	// may be listed first (the race detector's runtime adds the odd one).
	want := map[string]bool{"bench.TestCountHandoffs.func1": true, "bench.passBackAndForth < bench.TestCountHandoffs": true}
	if len(h.By) != 2 {
		t.Fatalf("readiers %+v, want each of %v once a round", h.By, want)
	}
	for _, b := range h.By {
		if !want[b.Where] || b.Count < 0.99 || b.Count > 1.01 {
			t.Fatalf("readiers %+v, want each of %v once a round", h.By, want)
		}
	}
}

//go:noinline
func passBackAndForth(ping chan<- int, pong <-chan int, rounds int) {
	for i := range rounds {
		ping <- i
		<-pong
	}
}

// What is not a trace, or a trace cut short, is an error, and so is a
// window without round trips to count by.
func TestCountHandoffsRefusesBadInput(t *testing.T) {
	wt, err := startWindowTrace()
	if err != nil {
		t.Skip("the tracer is in use:", err)
	}
	defer wt.close()
	wt.stop()
	whole, err := os.ReadFile(wt.f.Name())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := countHandoffs(bytes.NewReader(whole), 1); err != nil {
		t.Fatalf("a whole trace: %v", err)
	}
	for name, in := range map[string][]byte{"not a trace": []byte("go 1.26 trace\x00\x00\x00garbage"), "empty": nil,
		"cut short": whole[:len(whole)/2]} {
		if _, err := countHandoffs(bytes.NewReader(in), 1); err == nil {
			t.Errorf("%s: counted", name)
		}
	}
	if _, err := countHandoffs(bytes.NewReader(whole), 0); err == nil {
		t.Error("counted by no round trip")
	}
}
