package session

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/rtcagent/rtcagent/internal/core"
	"github.com/rtcagent/rtcagent/internal/lifecycle"
	"github.com/rtcagent/rtcagent/internal/protocol"
	"github.com/rtcagent/rtcagent/internal/stack"
	"github.com/rtcagent/rtcagent/internal/store"
)

// maxAttempts bounds retries of one inbox item that fails for reasons other than the
// model (database errors, bugs); after that its turn fails visibly.
const maxAttempts = 5

// owner is the lease of a session being drained, renewed in the background.
type owner struct {
	mu    sync.Mutex
	lease store.Lease
}

func (o *owner) get() store.Lease {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.lease
}

// fenced runs fn in a transaction that first checks this owner still holds the
// lease (the lease check fences it: a worker that lost the lease writes
// nothing). r.cfg.Store.Write is the unfenced write, for what stands whoever
// holds the lease (a result's compare-and-set, a question's end).
func (r *Runner) fenced(ctx context.Context, o *owner, fn func(tx store.Tx) error) error {
	return r.cfg.Store.Write(ctx, func(tx store.Tx) error {
		if err := tx.LeaseCheck(o.get()); err != nil {
			return err
		}
		return fn(tx)
	})
}

// drain processes the session's inbox until it is empty, then releases the lease.
// first, when set, is the item the claim already took, with its turn. sl is
// the drain's slot: before the first model step or server call the drain
// waits for it (an adopted drain), its lease renewed meanwhile.
func (r *Runner) drain(parent context.Context, lease store.Lease, first *taken, sl *slot) {
	ctx, cancel := context.WithCancel(parent)
	defer cancel()
	o := &owner{lease: lease}
	rn := r.renewEvery(ctx, cancel, o)
	defer func() { cancel(); rn.stop() }()
	defer r.releaseOnShutdown(parent, o)

	log := r.log.With("session", lease.SessionID)
	attempts, grown := 0, false
	for ctx.Err() == nil {
		var tk taken
		var err error
		if first != nil {
			tk, first = *first, nil
		} else {
			tk, err = r.next(ctx, o)
		}
		item, turn := tk.item, tk.turn
		r.SettlePartials(tk.closed)
		if item == nil {
			if err != nil && ctx.Err() == nil && !errors.Is(err, store.ErrLeaseLost) {
				log.Error("read inbox", "err", err)
			}
			return // the inbox is empty and the lease released, or the lease is gone
		}
		if err == nil && turn != nil {
			held, back := sl.wait(ctx, turn.ID, true)
			if back {
				if r.giveBack(ctx, o) {
					return // a node with a slot free takes the session
				}
				// Wait here instead; the lease may be gone all the same (a
				// commit whose answer was lost): checked once the slot is
				// held, before the model.
				held, _ = sl.wait(ctx, turn.ID, false)
				if held && errors.Is(r.fenced(ctx, o, func(store.Tx) error { return nil }), store.ErrLeaseLost) {
					return
				}
			}
			if !held {
				// Stopping or the lease is gone (the item stays in the inbox), or
				// the turn was stopped meanwhile: taking its item again drops it.
				continue
			}
		}
		if err == nil && turn != nil {
			if !grown {
				// Once its slot is held (a drain waiting for one keeps a
				// small stack): the model's stream and the store go deep.
				stack.Grow()
				grown = true
			}
			if item.Kind == core.KindRTCExecute {
				err = r.runServerRTC(ctx, o, item, turn)
			} else {
				err = r.runSteps(ctx, o, item, turn, tk.input)
			}
		}
		switch {
		case err == nil:
			attempts = 0
			metricInboxItems.WithLabelValues(item.Kind, "ok").Inc()
		case errors.Is(err, errReleased):
			metricInboxItems.WithLabelValues(item.Kind, "ok").Inc()
			return
		case errors.Is(err, store.ErrLeaseLost) || ctx.Err() != nil:
			metricInboxItems.WithLabelValues(item.Kind, "lease_lost").Inc()
			log.Warn("lease lost while working; the next owner resumes", "item", item.ID)
			return
		default:
			attempts++
			log.Error("inbox item failed", "item", item.ID, "kind", item.Kind, "turn", item.TurnID, "attempt", attempts, "err", err)
			if attempts >= maxAttempts {
				metricInboxItems.WithLabelValues(item.Kind, "given_up").Inc()
				r.giveUp(ctx, o, item, err)
				attempts = 0
				continue
			}
			metricInboxItems.WithLabelValues(item.Kind, "retry").Inc()
			select {
			case <-ctx.Done():
			case <-time.After(time.Duration(attempts) * 200 * time.Millisecond):
			}
		}
	}
}

// taken is an inbox item with its turn brought to running (nil when the item
// needed no work and was deleted), and the messages a dead owner left streaming
// that the same transaction closed.
type taken struct {
	item   *store.InboxItem
	turn   *protocol.Turn
	closed []string
	// input is the first step's input when the runner reads it in the
	// transaction that takes the item (Config.InputWithItem).
	input *stepInput
}

// next takes the session's oldest inbox item and, in the same transaction, brings
// its turn to running. With no item it releases the lease and returns no item. A
// turn of nil with a nil error means the item needed no work (it was deleted).
func (r *Runner) next(ctx context.Context, o *owner) (taken, error) {
	var tk taken
	err := r.fenced(ctx, o, func(tx store.Tx) error {
		var err error
		tk, err = r.take(tx, o.get(), true)
		return err
	})
	if err != nil {
		tk.closed = nil // rolled back: the messages still stream, keep their text
	}
	return tk, err
}

// take is next's transaction body, also run by a claim in the transaction that
// acquires the lease, and by Adopt inside a transaction that did other work
// first. prefetch asks for a resume's turn and open calls with the stream
// lock; Adopt's transaction most likely ended the turn's last call and read
// them already (when it did not, they are read after the lock).
func (r *Runner) take(tx store.Tx, lease store.Lease, prefetch bool) (taken, error) {
	it, err := tx.InboxNext(lease.SessionID)
	if errors.Is(err, store.ErrNotFound) {
		return taken{}, tx.LeaseRelease(lease)
	}
	if err != nil {
		return taken{}, err
	}
	turn, closed, err := r.begin(tx, it, prefetch)
	if errors.Is(err, errDone) {
		return taken{item: it, closed: closed}, nil
	}
	tk := taken{item: it, turn: turn, closed: closed}
	if err == nil && r.cfg.InputWithItem && it.Kind != core.KindRTCExecute {
		// begin read the session, so tx holds the user's stream: the
		// transcript read here is the one the step starts from.
		tk.input, err = r.readStepInput(tx, turn)
	}
	return tk, err
}

// errReleased reports that the transaction completing an item also found the inbox
// empty and released the lease: the drain is over.
var errReleased = errors.New("lease released")

// fencedItem is fenced for a transaction that may complete the item: fn calls
// finish to delete it (store.Tx.InboxFinish, which releases the lease when the
// inbox is then empty, saving the drain a round trip). When it released,
// fencedItem returns errReleased.
func (r *Runner) fencedItem(ctx context.Context, o *owner, item *store.InboxItem, fn func(tx store.Tx, finish func() error) error) error {
	released := false
	err := r.fenced(ctx, o, func(tx store.Tx) error {
		released = false
		return fn(tx, func() error { return tx.InboxFinish(item.ID, o.get(), &released) })
	})
	if err == nil && released {
		return errReleased
	}
	return err
}

// releaseOnShutdown gives the lease back when the runner stops mid-drain, so the
// session's work resumes at once on another node or after a restart instead of
// waiting for the lease to expire. The item in progress stays in the inbox.
func (r *Runner) releaseOnShutdown(parent context.Context, o *owner) {
	if parent.Err() == nil {
		return
	}
	r.releaseLease(o.get())
}

// giveUp fails the item's turn visibly and drops the item.
func (r *Runner) giveUp(ctx context.Context, o *owner, item *store.InboxItem, cause error) {
	var closed []string
	err := r.fenced(ctx, o, func(tx store.Tx) error {
		if err := tx.InboxDelete(*item); err != nil {
			return err
		}
		t, err := tx.TurnGet(item.TurnID)
		if err != nil || protocol.TurnTerminal(t.Status) {
			return err
		}
		terr := &protocol.TurnError{Category: "internal", Message: "the server could not continue this turn", Retryable: true}
		closed, err = lifecycle.FailTurn(tx, t, terr, "cancelled: the turn failed")
		return err
	})
	r.dropClosed(closed, err)
	if err != nil {
		r.log.Error("give up inbox item", "item", item.ID, "cause", cause, "err", err)
	}
}

func expireRTC(tx store.Tx, id string) error { return lifecycle.ExpireRTC(tx, id) }
