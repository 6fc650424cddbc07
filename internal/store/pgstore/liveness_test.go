package pgstore_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/rtcagent/rtcagent/internal/store"
	"github.com/rtcagent/rtcagent/internal/store/pgstore"
)

// A node's liveness write runs on a connection of its own: with every pooled
// connection held by other work, the record is still renewed in time.
func TestLivenessWriteDoesNotWaitForThePool(t *testing.T) {
	url := serverURL(t)
	sep := "?"
	if strings.Contains(url, "?") {
		sep = "&"
	}
	s := openStore(t, url+sep+"pool_max_conns=1", freshSchema(t, url), time.Now)
	held, release := make(chan struct{}), make(chan struct{})
	done := make(chan error, 1)
	go func() {
		done <- s.Write(ctx, func(tx store.Tx) error {
			close(held)
			<-release
			return nil
		})
	}()
	<-held
	defer func() {
		close(release)
		if err := <-done; err != nil {
			t.Error(err)
		}
	}()

	short, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
	defer cancel()
	if err := s.Write(short, func(tx store.Tx) error { return tx.NodeBeat("n1", 3*time.Second) }); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("a write with the pool's one connection held: %v, want it to wait past its deadline", err)
	}
	beat, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	if err := s.WriteLiveness(beat, func(tx store.Tx) error { return tx.NodeBeat("n1", 3*time.Second) }); err != nil {
		t.Fatalf("the liveness write waited for the pool: %v", err)
	}
}

// A liveness write that cannot get its own connection takes its turn in the
// pool rather than fail.
func TestLivenessWriteFallsBackToThePool(t *testing.T) {
	url := serverURL(t)
	s := openStore(t, url, freshSchema(t, url), time.Now)
	pgstore.CloseLiveness(s)
	if err := s.WriteLiveness(ctx, func(tx store.Tx) error { return tx.NodeBeat("n1", 3*time.Second) }); err != nil {
		t.Fatalf("the liveness write failed without its connection: %v", err)
	}
}
