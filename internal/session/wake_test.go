package session

import (
	"testing"

	"github.com/rtcagent/rtcagent/internal/testkit/testsvc"
)

// A drain that nobody woke while it held its session ends without a claim
// pass; a wake-up for the session while it was drained here (its work may have
// committed after the drain's last read of the inbox) is not dropped: the
// drain's end asks for the pass.
func TestWakeDuringDrainIsKept(t *testing.T) {
	r := New(Config{Store: testsvc.SQLite(t), Model: helloModel(t)})
	pending := func() bool {
		select {
		case <-r.wake:
			return true
		default:
			return false
		}
	}
	// A drain here: reserved, then ended (its slot given back first).
	var sl *slot
	begin := func() bool { sl, _ = r.reserve("s"); return sl != nil }
	end := func() bool { sl.free(); return r.unreserve("s") }
	if !begin() {
		t.Fatal("reserve")
	}
	if end() {
		t.Fatal("a drain nobody woke asked for a claim pass")
	}
	if !begin() {
		t.Fatal("reserve again")
	}
	r.Wake([]string{"s"})
	if pending() {
		t.Fatal("a wake-up for a session drained here started a pass at once")
	}
	if !end() {
		t.Fatal("the wake-up during the drain was dropped")
	}
	if !begin() || end() {
		t.Fatal("the wake-up was kept past the drain it was for")
	}
	r.Wake([]string{"s"})
	if !pending() {
		t.Fatal("a wake-up for a session not drained here started no pass")
	}
}
