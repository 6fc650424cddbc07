package chaos

import (
	"github.com/rtcagent/rtcagent/internal/testkit/nodeproc"

	"context"
	"errors"
	"sync"
	"time"
)

// Kill points.
const (
	pointStreaming  = "streaming"
	pointExecuting  = "executing"  // an RTC is running in a browser: RTCs pending
	pointSubmitting = "submitting" // a browser is about to submit a result
	pointAny        = "any"        // no trigger came in time: wherever the run was
)

// drive runs the users and the fault injectors until every user has sent its
// share of the turns, then stops the faults and brings every process back.
func (h *harness) drive(ctx context.Context) error {
	fctx, stopFaults := context.WithCancel(ctx)
	defer stopFaults()
	var faults sync.WaitGroup
	errs := make(chan error, 8)
	spawn := func(f func(context.Context) error) {
		faults.Add(1)
		go func() {
			defer faults.Done()
			if err := f(fctx); err != nil && !errors.Is(err, context.Canceled) {
				errs <- err
			}
		}()
	}
	spawn(h.killNodes)
	spawn(h.pauseNodes)
	spawn(h.disconnect)
	if h.o.Mode == "cluster" {
		spawn(h.restartRedis)
		spawn(h.terminateConnections)
	}
	var users sync.WaitGroup
	uerrs := make([]error, len(h.users))
	for i, u := range h.users {
		users.Add(1)
		go func() {
			defer users.Done()
			uerrs[i] = u.run(ctx)
		}()
	}
	users.Wait()
	stopFaults()
	faults.Wait()
	close(errs)
	var all []error
	for err := range errs {
		all = append(all, err)
	}
	all = append(all, uerrs...)
	if err := errors.Join(all...); err != nil {
		return err
	}
	// Everything up again for the settle phase.
	if h.redis != nil {
		if err := h.redis.start(ctx); err != nil {
			return err
		}
	}
	for _, n := range h.nodes {
		if err := h.startNode(ctx, n); err != nil {
			return err
		}
	}
	h.extra.Wait()
	return nil
}

// atShare waits until the run has started turns*i/(n+1) turns, so n faults of a
// kind spread evenly over the run; false when the run ended first.
func (h *harness) atShare(ctx context.Context, i, n int) bool {
	want := int64(h.o.Turns * (i + 1) / (n + 1))
	for h.started.Load() < want {
		select {
		case <-ctx.Done():
			return false
		case <-time.After(20 * time.Millisecond):
		}
	}
	return true
}

// killNodes kills a node with SIGKILL o.Kills times, each at a kill point, and
// restarts it on the same data after a short pause.
func (h *harness) killNodes(ctx context.Context) error {
	points := []string{pointStreaming, pointExecuting, pointSubmitting}
	for i := range h.o.Kills {
		if !h.atShare(ctx, i, h.o.Kills) {
			return nil
		}
		point := points[h.rng.intn(len(points))]
		trigger := map[string]chan struct{}{pointStreaming: h.streaming, pointExecuting: h.executing, pointSubmitting: h.submitting}[point]
		select {
		case <-trigger: // a stale signal: wait for a fresh one
		default:
		}
		select {
		case <-trigger:
			if point == pointSubmitting {
				time.Sleep(h.rng.dur(0, 3*time.Millisecond))
			}
		case <-time.After(3 * time.Second):
			point = pointAny
		case <-ctx.Done():
			return nil
		}
		n := h.nodes[h.rng.intn(len(h.nodes))]
		n.Kill()
		h.count(func(r *Report) { r.Kills++; r.KillsAt[point]++ })
		h.logf("kill %d/%d: %s (%s)", i+1, h.o.Kills, n.Addr, point)
		time.Sleep(h.rng.dur(0, 400*time.Millisecond))
		if err := h.startNode(context.Background(), n); err != nil {
			return err
		}
	}
	return nil
}

// pauseNodes stops a node for longer than its liveness TTL and lets it
// continue, o.Pauses times: its liveness record lapses meanwhile and, in a
// cluster, other nodes take its sessions over; the writes it then attempts must
// fail.
func (h *harness) pauseNodes(ctx context.Context) error {
	for i := range h.o.Pauses {
		if !h.atShare(ctx, i, h.o.Pauses) {
			return nil
		}
		select {
		case <-h.streaming: // stale
		default:
		}
		select {
		case <-h.streaming:
		case <-time.After(3 * time.Second):
		case <-ctx.Done():
			return nil
		}
		n := h.nodes[h.rng.intn(len(h.nodes))]
		if n.Pause(h.rng.dur(2500*time.Millisecond, 4*time.Second)) {
			h.count(func(r *Report) { r.Pauses++ })
			h.logf("paused %s (%d/%d)", n.Addr, i+1, h.o.Pauses)
		}
	}
	return nil
}

// restartRedis stops the run's Redis (losing everything in it) and starts it
// again, o.RedisRestarts times.
func (h *harness) restartRedis(ctx context.Context) error {
	for i := range h.o.RedisRestarts {
		if !h.atShare(ctx, i, h.o.RedisRestarts) {
			return nil
		}
		h.redis.stop()
		h.count(func(r *Report) { r.RedisRestarts++ })
		h.logf("redis restart %d/%d", i+1, h.o.RedisRestarts)
		time.Sleep(h.rng.dur(100*time.Millisecond, 800*time.Millisecond))
		if err := h.redis.start(context.Background()); err != nil {
			return err
		}
	}
	return nil
}

// terminateConnections ends every database connection of the nodes,
// o.PGTerminations times.
func (h *harness) terminateConnections(ctx context.Context) error {
	for i := range h.o.PGTerminations {
		if !h.atShare(ctx, i, h.o.PGTerminations) {
			return nil
		}
		// Shifted by half a share, so they do not coincide with Redis restarts.
		time.Sleep(h.rng.dur(0, 500*time.Millisecond))
		n, err := h.terminateBackends(context.Background())
		if err != nil {
			return err
		}
		h.count(func(r *Report) { r.PGTerminations++; r.PGBackends += n })
		h.logf("terminated %d database connections", n)
	}
	return nil
}

// disconnect drops a random user's connection for a moment, or reloads its page
// (on a random node), every o.DisconnectEvery on average.
func (h *harness) disconnect(ctx context.Context) error {
	if h.o.DisconnectEvery <= 0 {
		return nil
	}
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(h.rng.dur(h.o.DisconnectEvery/2, h.o.DisconnectEvery*3/2)):
		}
		u := h.users[h.rng.intn(len(h.users))]
		if h.rng.chance(0.5) {
			c := u.cur()
			_ = c.Disconnect()
			time.Sleep(h.rng.dur(0, 300*time.Millisecond))
			_ = c.Reconnect()
			h.count(func(r *Report) { r.Disconnects++ })
			continue
		}
		if err := u.reload(context.Background(), h.nodes[h.rng.intn(len(h.nodes))]); err != nil {
			return err
		}
		h.count(func(r *Report) { r.Reloads++ })
	}
}

// startNode starts a node and counts the starts it needed beyond the first.
func (h *harness) startNode(ctx context.Context, n *nodeproc.Proc) error {
	retries, err := n.Start(ctx)
	h.count(func(r *Report) { r.StartRetries += retries })
	return err
}
