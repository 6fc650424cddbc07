package session

import (
	"context"
	"time"

	"github.com/rtcagent/rtcagent/internal/store"
)

// beat renews this process's liveness record (store.Tx.NodeBeat) every third of
// the node TTL until ctx ends. While the record lives, the leases this process
// holds last their full TTL; once it stops (the process died or stalls), other
// nodes take its sessions over within the node TTL plus a poll, and fencing
// turns away whatever the stalled process writes later.
func (r *Runner) beat(ctx context.Context) {
	t := time.NewTicker(r.cfg.NodeTTL / 3)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		if err := r.beatOnce(ctx); err != nil && ctx.Err() == nil {
			r.log.Warn("renew node liveness", "node", r.cfg.Holder, "err", err)
		}
	}
}

func (r *Runner) beatOnce(ctx context.Context) error {
	// Past the TTL the record has expired anyway: a renewal stuck longer
	// (a connection that hangs) gives way to the next.
	ctx, cancel := context.WithTimeout(ctx, r.cfg.NodeTTL)
	defer cancel()
	if err := r.writeLiveness(ctx, func(tx store.Tx) error { return tx.NodeBeat(r.cfg.Holder, r.cfg.NodeTTL) }); err != nil || r.cfg.SoleWriter {
		return err
	}
	// Apart from the renewal, which a failure here must not undo.
	var others bool
	if err := r.writeLiveness(ctx, func(tx store.Tx) error {
		var err error
		others, err = tx.OtherNodeAlive(r.cfg.Holder)
		return err
	}); err != nil {
		return err
	}
	r.setAlone(!others) // alone.go
	return nil
}

// writeLiveness runs a write of this process's liveness record apart from
// the store's other work where the store can (store.LivenessWriter): with
// every pooled connection busy with drains and API calls, a renewal that
// waited its turn could come after the record expired.
func (r *Runner) writeLiveness(ctx context.Context, fn func(tx store.Tx) error) error {
	if lw, ok := r.cfg.Store.(store.LivenessWriter); ok {
		return lw.WriteLiveness(ctx, fn)
	}
	return r.cfg.Store.Write(ctx, fn)
}

// leave expires this process's liveness record when the runner stops, so any
// lease it could not give back is free at once rather than after its TTL.
func (r *Runner) leave() {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if err := r.writeLiveness(ctx, func(tx store.Tx) error { return tx.NodeLeave(r.cfg.Holder) }); err != nil {
		r.log.Warn("expire node liveness at shutdown", "node", r.cfg.Holder, "err", err)
	}
}
