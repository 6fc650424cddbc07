package bench

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rtcagent/rtcagent/internal/protocol"
	"github.com/rtcagent/rtcagent/internal/testkit/simclient"
)

// load is what the simulated browsers of one point did in its window.
type load struct {
	Turns, Failed, ClientErrors int
	Live                        []time.Duration // model chunk → client receive
	// Held is, by tool call id, how long a client held the call: from the
	// arrival of its publication to the send of its result, the client's
	// share of the round trip (simclient.Config.OnSubmit).
	Held map[string]time.Duration
	CPU  time.Duration // CPU time of the clients' process in the window; 0 when shared with the server
}

// clientsJob is what a clients process is given on its standard input.
type clientsJob struct {
	URLs           []string // client i connects to URLs[i mod len(URLs)]
	Tokens         []string // one per client, issued by the parent
	Prefix         string
	Warmup, Window time.Duration
}

// driveLoad runs the clients for warmup + window: each sends a message (a new
// session per turn), waits for the turn to end and repeats. window is called when
// the warm-up ends, and the result covers only what happened after that.
func driveLoad(ctx context.Context, clients []*simclient.Client, prefix string, seen *clientTimes, warmup, d time.Duration, window func()) load {
	var turns, failed atomic.Int64
	lctx, cancel := context.WithTimeout(ctx, warmup+d)
	defer cancel()
	var wg sync.WaitGroup
	for i, c := range clients {
		wg.Go(func() {
			for k := 0; lctx.Err() == nil; k++ {
				res, err := c.Send(lctx, "", fmt.Sprintf("%s-m-%d-%d", prefix, i, k), "go")
				if err != nil {
					if lctx.Err() == nil {
						failed.Add(1)
					}
					return
				}
				tr, err := c.WaitTurn(lctx, res.TurnID)
				if err != nil {
					return
				}
				if tr.Status == protocol.TurnCompleted {
					turns.Add(1)
				} else {
					failed.Add(1)
				}
			}
		})
	}
	select {
	case <-time.After(warmup):
	case <-lctx.Done():
	}
	window()
	seen.forget()
	turns.Store(0)
	failed.Store(0)
	cpu0 := ownCPU()
	<-lctx.Done()
	l := load{Turns: int(turns.Load()), Failed: int(failed.Load()), CPU: ownCPU() - cpu0}
	l.Live = seen.takeLive()
	wg.Wait()
	// After the clients' last sends: the calls they answered meanwhile may
	// still count as the window's round trips.
	l.Held = seen.takeHeld()
	for _, c := range clients {
		if c.Err() != nil {
			l.ClientErrors++
		}
	}
	return l
}

// clientsChild runs one point's clients in a child process (ServeCmd + "bench
// clients"), so that this process's CPU is the server's alone. The child
// prints "window" when its warm-up ends and then its load as JSON.
func clientsChild(ctx context.Context, o Options, srv *running, prefix string, n int, warmup, d time.Duration, window func()) (load, error) {
	job := clientsJob{URLs: []string{srv.url}, Prefix: prefix, Warmup: warmup, Window: d}
	for i := range n {
		tok, _, err := srv.ver.Issue(fmt.Sprintf("%s-%d", prefix, i), 24*time.Hour)
		if err != nil {
			return load{}, err
		}
		job.Tokens = append(job.Tokens, tok)
	}
	return clientsChildJob(ctx, o, job, window)
}

// clientsChildJob runs job's clients in a child process; window is called
// when the child's warm-up ends.
func clientsChildJob(ctx context.Context, o Options, job clientsJob, window func()) (load, error) {
	if len(job.URLs) == 0 {
		return load{}, errors.New("clients process: no server address")
	}
	in, err := json.Marshal(job)
	if err != nil {
		return load{}, err
	}
	cmd := o.benchChild(ctx, "clients")
	cmd.Stdin = bytes.NewReader(in)
	out, err := cmd.StdoutPipe()
	if err != nil {
		return load{}, err
	}
	if err := cmd.Start(); err != nil {
		return load{}, err
	}
	defer func() { _ = cmd.Wait() }()
	sc := bufio.NewScanner(out)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	var l load
	got := false
	for sc.Scan() {
		line := sc.Bytes()
		if string(line) == "window" {
			window()
			continue
		}
		if err := json.Unmarshal(line, &l); err != nil {
			return load{}, fmt.Errorf("clients process: %q: %w", line, err)
		}
		got = true
	}
	if !got {
		return load{}, errors.New("clients process ended without a result")
	}
	return l, nil
}

// runClients is `rtcagent bench clients`: the child side of clientsChild.
func runClients(stdin io.Reader, stdout io.Writer) error {
	var job clientsJob
	if err := json.NewDecoder(io.LimitReader(stdin, 64<<20)).Decode(&job); err != nil {
		return fmt.Errorf("read job: %w", err)
	}
	ctx := context.Background()
	seen := &clientTimes{}
	clients, err := dialTokens(ctx, job.URLs, job.Tokens, seen.config)
	if err != nil {
		return err
	}
	defer closeAll(clients)
	l := driveLoad(ctx, clients, job.Prefix, seen, job.Warmup, job.Window, func() { fmt.Fprintln(stdout, "window") })
	return json.NewEncoder(stdout).Encode(l)
}

// clientTimes is what the load's clients time: Live latencies and their
// shares of round trips.
type clientTimes struct {
	mu   sync.Mutex
	live []time.Duration
	held map[string]time.Duration
}

// config is a load client's configuration: it answers every call (ok) and
// reports its times here.
func (s *clientTimes) config(int) simclient.Config {
	return simclient.Config{Tool: ok,
		OnDelta: func(dl protocol.Delta, at time.Time) {
			for _, t := range unstamps(dl.Delta) {
				s.mu.Lock()
				s.live = append(s.live, at.Sub(t))
				s.mu.Unlock()
			}
		},
		OnSubmit: func(callID string, held time.Duration) {
			s.mu.Lock()
			if s.held == nil {
				s.held = map[string]time.Duration{}
			}
			s.held[callID] = held
			s.mu.Unlock()
		}}
}

// forget drops the times seen so far.
func (s *clientTimes) forget() {
	s.mu.Lock()
	s.live, s.held = nil, nil
	s.mu.Unlock()
}

// takeLive returns the Live latencies seen so far and forgets them.
func (s *clientTimes) takeLive() []time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	live := s.live
	s.live = nil
	return live
}

// takeHeld returns the clients' shares seen so far and forgets them.
func (s *clientTimes) takeHeld() map[string]time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	held := s.held
	s.held = nil
	return held
}

// serverShare is each round trip less its client's share (held, by call
// id), for the gaps whose client reported one.
func serverShare(gaps []time.Duration, ids []string, held map[string]time.Duration) []time.Duration {
	var out []time.Duration
	for i, g := range gaps {
		if h, ok := held[ids[i]]; ok {
			out = append(out, g-h)
		}
	}
	return out
}
