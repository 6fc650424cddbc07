package pgstore_test

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/rtcagent/rtcagent/internal/protocol"
	"github.com/rtcagent/rtcagent/internal/store"
)

// The reads sent in one statement with a user stream's lock are of a snapshot
// taken before the lock was granted: when the lock waited for a writer of that
// user, what they read is dropped and read again after the lock, so a
// transaction never writes back a row older than the one its lock's previous
// holder committed. The writer changes the turn with its Topic update, or
// without one (the stream row is then raised at commit all the same).
func TestReadsWithTheLockAfterAWait(t *testing.T) {
	for _, withUpdate := range []bool{true, false} {
		t.Run(fmt.Sprint("topic update=", withUpdate), func(t *testing.T) {
			s, tr, rc := waitingTurn(t)
			locked, done := make(chan struct{}), make(chan error, 1)
			go func() {
				done <- s.Write(ctx, func(tx store.Tx) error {
					if _, err := tx.NextOffset("u"); err != nil { // the stream's lock
						return err
					}
					close(locked)
					time.Sleep(300 * time.Millisecond) // the reader queues behind the lock
					next := tr
					next.Step = 2
					if err := tx.TurnUpdate(&next, protocol.TurnWaiting); err != nil {
						return err
					}
					ended := rc
					ended.Status = protocol.RTCCompleted
					if err := tx.RTCUpdate(&ended, protocol.RTCPending); err != nil {
						return err
					}
					if withUpdate {
						_, err := tx.UpdateAppend("u", protocol.UpdTurnUpdated, &next)
						return err
					}
					return nil
				})
			}()
			<-locked
			var step int
			var status string
			read := make(chan error, 1)
			go func() {
				// An RTC's read waits for its answer: it is sent with the
				// lock but never dropped.
				read <- s.Write(ctx, func(tx store.Tx) error {
					r, err := tx.RTCGet("r")
					status = r.Status
					return err
				})
			}()
			err := s.Write(ctx, func(tx store.Tx) error {
				tx.Prefetch(store.Prefetch{Turn: "t"})
				if _, err := tx.SessionGet("s"); err != nil { // the lock, with the turn's read
					return err
				}
				got, err := tx.TurnGet("t")
				step = got.Step
				return err
			})
			if err != nil {
				t.Fatal(err)
			}
			if err := errors.Join(<-done, <-read); err != nil {
				t.Fatal(err)
			}
			if step != 2 || status != protocol.RTCCompleted {
				t.Fatalf("read after the lock: the turn at step %d, the call %s; want 2 and completed (the lock's previous holder's)", step, status)
			}
		})
	}
}
