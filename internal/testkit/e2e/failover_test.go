package e2e

import (
	"fmt"
	"slices"
	"syscall"
	"testing"
	"time"

	"github.com/rtcagent/rtcagent/internal/protocol"
)

// failover waits (polling every 10 ms) until every browser's turn ended, and
// returns, for each stream cut by a node's death or stall at at, how long after
// at its client saw the stream closed as interrupted: the first write of the node
// that took the session over.
func failover(t *testing.T, at time.Time, browsers []*browser, turns []string, timeout time.Duration) []time.Duration {
	t.Helper()
	seen := map[string]bool{}
	var out []time.Duration
	deadline := time.Now().Add(timeout)
	for {
		done := true
		for i, b := range browsers {
			b.mu.Lock()
			for id, m := range b.messages {
				if m.Status == protocol.MessageInterrupted && !seen[id] {
					seen[id] = true
					out = append(out, time.Since(at))
				}
			}
			tr, ok := b.turns[turns[i]]
			b.mu.Unlock()
			if !ok || !protocol.TurnTerminal(tr.Status) {
				done = false
			}
		}
		if done {
			slices.Sort(out)
			return out
		}
		if time.Now().After(deadline) {
			t.Fatalf("turns not ended %s after the fault (%d streams resumed so far)", timeout, len(out))
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func describe(ds []time.Duration) string {
	if len(ds) == 0 {
		return "no stream cut"
	}
	return fmt.Sprintf("%d streams, first %s, median %s, last %s", len(ds),
		ds[0].Round(time.Millisecond), ds[len(ds)/2].Round(time.Millisecond), ds[len(ds)-1].Round(time.Millisecond))
}

// waitStreaming waits until every browser has received a delta of its turn.
func waitStreaming(t *testing.T, browsers []*browser, timeout time.Duration) {
	t.Helper()
	waitFor(t, "streams to start", timeout, func() bool {
		for _, b := range browsers {
			b.mu.Lock()
			n := len(b.deltas)
			b.mu.Unlock()
			if n == 0 {
				return false
			}
		}
		return true
	})
}

// slowStream is one turn whose first step streams for about 6 s before a tool
// call: longer than two node TTLs.
const slowStream = `{"name": "slow", "turns": [{"steps": [
  {"chunks": ["a ", "b ", "c ", "d ", "e ", "f ", "g ", "h ", "i ", "j ", "k ", "l "], "delay_ms": 500,
   "tool_calls": [{"name": "write", "arguments": {"path": "/s.txt", "content": "s"}}]},
  {"text": "finished"}]}]}`

// TestClusterLiveNodeKeepsLease: a node streams a step for longer than two node
// TTLs under a 30 s lease while another node polls every 100 ms: the live node
// renews its liveness record, so its session is never taken over (a takeover
// would close the stream as interrupted and repeat the step).
func TestClusterLiveNodeKeepsLease(t *testing.T) {
	c := startCluster(t, 2, slowStream, map[int][]string{0: {"-lease-ttl", "30s"}, 1: {"-lease-ttl", "30s"}})
	b := newBrowser(t, c.nodes[1], "live", "dev")
	res := sendVia(t, c.nodes[0], b.user, "dev", "go slow")
	if tr := b.waitTurn(res.TurnID, 40*time.Second); tr.Status != protocol.TurnCompleted {
		t.Fatalf("turn %s %+v", tr.Status, tr.Error)
	}
	msgs := b.assistantMessages(res.SessionID)
	for _, m := range msgs {
		if m.Status != protocol.MessageComplete {
			t.Fatalf("message %s %s: the live node's session was taken over", m.ID, m.Status)
		}
	}
	if got := b.deltaText(msgs[0].ID); got != "a b c d e f g h i j k l " {
		t.Fatalf("streamed %q", got)
	}
}

// TestClusterNodePaused: the node running the turns is stopped (SIGSTOP) mid-
// stream for longer than the node TTL but far shorter than the 30 s lease, then
// continued. The survivor takes the sessions over once the paused node's
// liveness record expired; the paused node's writes after SIGCONT fail on the
// fencing token: every turn completes once, every RTC runs once, offsets stay
// contiguous.
func TestClusterNodePaused(t *testing.T) {
	const users = 3
	c := startCluster(t, 2, `{"name": "pause", "turns": [{"steps": [
	  {"chunks": ["a ", "b ", "c ", "d ", "e ", "f ", "g ", "h ", "i ", "j "], "delay_ms": 200,
	   "tool_calls": [{"name": "write", "arguments": {"path": "/p.txt", "content": "p"}}]},
	  {"text": "finished"}]}]}`,
		map[int][]string{0: {"-lease-ttl", "30s"}, 1: {"-lease-ttl", "30s", "-poll-interval", "1s"}})
	var browsers []*browser
	var turns []string
	for i := range users {
		b := newBrowser(t, c.nodes[1], fmt.Sprintf("p%d", i), "dev")
		browsers = append(browsers, b)
		turns = append(turns, sendVia(t, c.nodes[0], b.user, "dev", fmt.Sprintf("go %d", i)).TurnID)
	}
	waitStreaming(t, browsers, 10*time.Second)
	paused := time.Now()
	if err := c.nodes[0].cmd.Process.Signal(syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	go func() {
		time.Sleep(8 * time.Second)
		_ = c.nodes[0].cmd.Process.Signal(syscall.SIGCONT)
	}()
	ds := failover(t, paused, browsers, turns, 20*time.Second)
	t.Logf("failover after a node paused (lease TTL 30s, node TTL 3s, poll 1s): %s", describe(ds))
	if len(ds) == 0 {
		t.Fatal("no stream was cut: the paused node ran none of the turns")
	}
	time.Sleep(time.Until(paused.Add(9 * time.Second))) // the paused node runs again meanwhile
	for i, b := range browsers {
		if tr := b.waitTurn(turns[i], 10*time.Second); tr.Status != protocol.TurnCompleted {
			t.Fatalf("%s: turn %s %+v", b.user, tr.Status, tr.Error)
		}
		var ul protocol.UpdateListResult
		b.mustCall(protocol.MethodUpdateList, protocol.UpdateListRequest{Limit: 1}, &ul)
		b.waitOffset(ul.Top)
		b.checkOffsets()
		b.mu.Lock()
		for id, n := range b.executed {
			if n != 1 {
				t.Errorf("%s: rtc %s executed %d times", b.user, id, n)
			}
		}
		b.mu.Unlock()
		tr, _ := b.turn(turns[i])
		msgs := b.assistantMessages(tr.SessionID)
		if last := msgs[len(msgs)-1]; last.Text != "finished" || last.Status != protocol.MessageComplete {
			t.Fatalf("%s: last message %q %s", b.user, last.Text, last.Status)
		}
	}
}
