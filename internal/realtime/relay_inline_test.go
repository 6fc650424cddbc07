package realtime

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/rtcagent/rtcagent/internal/protocol"
)

// recorder is a broker in this process: it records what it is given, and
// fails the publications it is told to, once each.
type recorder struct {
	mu    sync.Mutex
	got   []int64
	fail  map[int64]bool
	calls int
}

func (b *recorder) publish(u protocol.Update) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.calls++
	if b.fail[u.Offset] {
		delete(b.fail, u.Offset)
		return errors.New("broker down")
	}
	b.got = append(b.got, u.Offset)
	return nil
}

func (b *recorder) published() []int64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return slices.Clone(b.got)
}

// With the broker in this process, the commit hook publishes an update of a
// user with nothing pending before it returns. A publication that fails is
// left to the worker, and the updates after it wait behind it: every update
// reaches the broker once, in offset order.
func TestRelayPublishesInlineInOrder(t *testing.T) {
	b := &recorder{fail: map[int64]bool{3: true}}
	r := newRelay(nil, slog.New(slog.NewTextHandler(io.Discard, nil)), 1<<20, b.publish, true)
	r.start()
	defer r.stop(t.Context())

	upd := func(off int64) []protocol.Update {
		return []protocol.Update{{UserID: "u1", Offset: off, Epoch: "e", Payload: []byte(fmt.Sprint(off))}}
	}
	r.note(upd(1))
	r.note(upd(2))
	if got := b.published(); !slices.Equal(got, []int64{1, 2}) {
		t.Fatalf("published %v as note returned, want [1 2]", got)
	}
	for off := int64(3); off <= 20; off++ {
		r.note(upd(off))
	}
	want := make([]int64, 0, 20)
	for off := int64(1); off <= 20; off++ {
		want = append(want, off)
	}
	deadline := time.Now().Add(5 * time.Second)
	for !slices.Equal(b.published(), want) {
		if time.Now().After(deadline) {
			t.Fatalf("published %v, want 1..20 in order, each once", b.published())
		}
		time.Sleep(10 * time.Millisecond)
	}
	// Once the worker caught up, the hook publishes again itself.
	for {
		r.mu.Lock()
		idle := len(r.users) == 0
		r.mu.Unlock()
		if idle {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the worker kept the user pending")
		}
		time.Sleep(time.Millisecond)
	}
	r.note(upd(21))
	if got := b.published(); got[len(got)-1] != 21 {
		t.Fatalf("published %v as note returned, want 21 last", got)
	}
}
