package sqlitestore_test

import (
	"context"
	"errors"
	"path/filepath"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rtcagent/rtcagent/internal/store"
	"github.com/rtcagent/rtcagent/internal/store/sqlitestore"
)

// A write's function that ends its goroutine (as a failed test's t.Fatal
// does) ends the goroutine of the Write that ran it, as when it ran there,
// and the store goes on: the next write commits and Close returns.
func TestWriteThatEndsItsGoroutine(t *testing.T) {
	_, s := openWAL(t, sqlitestore.Options{})
	ctx := context.Background()
	returned := make(chan bool, 1)
	go func() {
		ended := true
		defer func() { returned <- ended }()
		_ = s.Write(ctx, func(tx store.Tx) error { runtime.Goexit(); return nil })
		ended = false
	}()
	if !<-returned {
		t.Fatal("Write returned after its function ended the goroutine")
	}
	assertWrites(t, s)
}

// A panic in a group outside the writes' functions (here the store's clock)
// goes on in the Write that led it, and the group's transaction is rolled
// back: the next write commits.
func TestPanicInAGroupRollsItBack(t *testing.T) {
	var panicNow atomic.Bool
	_, s := openWAL(t, sqlitestore.Options{Now: func() time.Time {
		if panicNow.Load() {
			panic("the clock failed")
		}
		return time.Now()
	}})
	ctx := context.Background()
	assertWrites(t, s) // the writer is taken before the clock fails
	panicNow.Store(true)
	var p any
	func() {
		defer func() { p = recover() }()
		_ = s.Write(ctx, func(tx store.Tx) error { return nil })
	}()
	if msg, _ := p.(string); !strings.Contains(msg, "the clock failed") {
		t.Fatalf("the panic %v, want the clock's", p)
	}
	panicNow.Store(false)
	assertWrites(t, s)
}

// assertWrites checks that a write commits, within a bound.
func assertWrites(t *testing.T, s *sqlitestore.Store) {
	t.Helper()
	done := make(chan error, 1)
	go func() {
		done <- s.Write(context.Background(), func(tx store.Tx) error { return tx.NodeBeat("node", time.Minute) })
	}()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("the next write: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the next write does not return")
	}
}

// A write after Close fails and starts nothing.
func TestWriteAfterClose(t *testing.T) {
	s, err := sqlitestore.Open(context.Background(), filepath.Join(t.TempDir(), "closed.db"), sqlitestore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	assertWrites(t, s)
	s.Close()
	before := runtime.NumGoroutine()
	err = s.Write(context.Background(), func(tx store.Tx) error { return nil })
	if err == nil || !errors.Is(err, sqlitestore.ErrClosed) {
		t.Errorf("a write after Close: %v, want ErrClosed", err)
	}
	if n := runtime.NumGoroutine(); n > before {
		t.Errorf("%d goroutines after the write, %d before", n, before)
	}
}

// When the goroutine leading a group ends (a write's function ended it
// under the writer), the group's other writes did not take effect, and the
// Write that returns says so instead of returning no error.
func TestGroupWhoseLeaderUnwoundFailsItsWrites(t *testing.T) {
	_, s := openWAL(t, sqlitestore.Options{})
	ctx := context.Background()
	assertWrites(t, s)
	// A read the writer's memory cannot answer runs the function under the
	// writer, not off it first.
	underWriter := func(tx store.Tx) { _, _ = tx.RTCGet("not-known") }
	held, release := make(chan struct{}), make(chan struct{})
	go func() {
		_ = s.Write(ctx, func(tx store.Tx) error {
			underWriter(tx)
			close(held)
			<-release
			return nil
		})
	}()
	<-held
	type outcome struct {
		ended bool
		err   error
	}
	outcomes := make(chan outcome, 2)
	write := func(fn func(tx store.Tx) error) {
		go func() {
			o := outcome{ended: true}
			defer func() { outcomes <- o }()
			o.err = s.Write(ctx, fn)
			o.ended = false
		}()
	}
	write(func(tx store.Tx) error {
		underWriter(tx)
		runtime.Goexit()
		return nil
	})
	write(func(tx store.Tx) error { return tx.NodeBeat("node", time.Minute) })
	time.Sleep(200 * time.Millisecond) // both queue behind the held group
	close(release)
	var ended int
	for range 2 {
		o := <-outcomes
		switch {
		case o.ended:
			ended++
		case o.err == nil:
			t.Error("a write of the group returned no error, although the group was rolled back")
		}
	}
	if ended != 1 {
		t.Errorf("%d goroutines ended, want the leader's alone", ended)
	}
	assertWrites(t, s)
}
