package pgstore

import (
	"context"
	"strings"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
)

// Wake-ups across nodes. A write transaction that gives sessions inbox work
// without taking their leases itself (another node holds one, or this node
// adopts nothing) sends their ids with pg_notify on the schema's channel, in the
// same pipeline as COMMIT: PostgreSQL delivers a notification only when its
// transaction commits, and costs no exchange of its own. Every node listens on
// the channel (Listen) and wakes its runner with the ids. Notifications are
// hints like local wake-ups: one lost while a listener reconnects is made up by
// the runner's poll. A lease given back with work left (LeaseRelease) is
// notified the same way, with the session's id (ready.go).

// channel is the notification channel of the store's schema: nodes on another
// schema of the same database never hear it.
func channel(schema string) string { return "rtcagent_work_" + schema }

// notifyMax bounds the payload of one notification (PostgreSQL's limit is
// 8000 bytes); more sessions are sent in several.
const notifyMax = 7000

// NodeLeave expires the node's liveness record and, with the commit, asks
// every node to look at the ready queue (a notification with no ids): a node
// that stops gives its sessions' leases back before it leaves, and those
// with work left are taken over at once, not at the next poll.
func (t *tx) NodeLeave(node string) error {
	if err := t.Shared.NodeLeave(node); err != nil {
		return err
	}
	t.left = true
	return nil
}

// notifyNotLeased queues, before COMMIT, the notification of the sessions t
// woke whose leases it neither took nor checked (a holder drains its new items
// before it lets go), and the one a NodeLeave asks for; it reports whether it
// queued one. (Leases given back with work left are notified with their
// return to the ready queue: queueReady.)
func (t *tx) notifyNotLeased() (queued bool) {
	ch := t.channel
	var payload strings.Builder
	flush := func() {
		if payload.Len() > 0 {
			_ = t.later(nil, `SELECT pg_notify($1, $2)`, ch, payload.String())
			payload.Reset()
			queued = true
		}
	}
	if t.left {
		_ = t.later(nil, `SELECT pg_notify($1, '')`, ch)
		queued = true
	}
	for _, id := range t.Wakes.Pending() {
		if payload.Len()+len(id)+1 > notifyMax {
			flush()
		}
		if payload.Len() > 0 {
			payload.WriteByte(' ')
		}
		payload.WriteString(id)
	}
	flush()
	return queued
}

var notifyCounts struct{ sent, received atomic.Int64 }

// NotifyCounts returns the process's notifications of inbox work sent (one per
// notifying transaction's batch of woken sessions, one per lease given back
// with work left) and received so far.
func NotifyCounts() (sent, received int64) {
	return notifyCounts.sent.Load(), notifyCounts.received.Load()
}

// Listening reports whether the store's listener is connected and listening:
// while it is, other nodes' work reaches this node without its poll.
func (s *Store) Listening() bool { return s.listening.Load() }

// Listen receives the notifications of inbox work on a connection of its own
// until ctx ends, and calls wake with each one's session ids (from any node,
// this one included). A lost connection is opened again after a pause; the
// notifications sent meanwhile are lost, which the runner's poll makes up for.
func (s *Store) Listen(ctx context.Context, wake func(sessionIDs []string)) {
	pause := 100 * time.Millisecond
	for ctx.Err() == nil {
		err := s.listenOnce(ctx, wake)
		s.listening.Store(false)
		if ctx.Err() != nil {
			return
		}
		if err != nil {
			pause = min(pause*2, 5*time.Second)
		}
		select {
		case <-ctx.Done():
		case <-time.After(pause):
		}
	}
}

func (s *Store) listenOnce(ctx context.Context, wake func([]string)) error {
	conn, err := pgx.ConnectConfig(ctx, s.connCfg.Copy())
	if err != nil {
		return err
	}
	defer conn.Close(context.WithoutCancel(ctx))
	if _, err := conn.Exec(ctx, `LISTEN `+pgx.Identifier{s.channel}.Sanitize()); err != nil {
		return err
	}
	s.listening.Store(true)
	// Work committed before LISTEN took effect was not heard: one wake-up
	// with no ids makes the runner look at the inbox once.
	wake(nil)
	for {
		n, err := conn.WaitForNotification(ctx)
		if err != nil {
			return err
		}
		notifyCounts.received.Add(1)
		wake(strings.Fields(n.Payload))
	}
}

// markLeased notes that this transaction holds the session's lease.
func (t *tx) markLeased(sessionID string) { t.Wakes.Hold(sessionID) }
