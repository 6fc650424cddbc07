package realtime_test

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/rtcagent/rtcagent/internal/store"
)

// TestHistoryFromStore: the Topic position a client starts from is the store's,
// not the broker's: updates committed before the node started are history, and
// the first publication after them is in sequence, not a gap.
func TestHistoryFromStore(t *testing.T) {
	st := openStore(t, t.TempDir())
	defer st.Close()
	appendUpdates(t, st, "alice", 30)
	node := startNode(t, st, "", "")
	defer shutdown(node, 5*time.Second)
	cl := dial(t, serve(t, node.WebSocketHandler()), "alice")
	appendUpdates(t, st, "alice", 10)
	cl.waitInOrder(t, 31, 40, 10*time.Second)
}

// TestRelayOrderManyUsers: concurrent commits of many users reach each user's
// client once and in offset order.
func TestRelayOrderManyUsers(t *testing.T) {
	st, url := startLocalNode(t)
	const users, perUser = 6, 300
	var clients []*client
	for u := range users {
		clients = append(clients, dial(t, url, fmt.Sprintf("u%d", u)))
	}
	var wg sync.WaitGroup
	for w := range 2 * users { // two writers per user
		wg.Go(func() { appendUpdates(t, st, fmt.Sprintf("u%d", w%users), perUser/2) })
	}
	wg.Wait()
	for _, cl := range clients {
		cl.waitInOrder(t, 1, perUser, 30*time.Second)
	}
}

// TestRecoveryAcrossRestart: the node stops, updates commit while no node runs,
// a new node starts on the reopened store; the client reconnects to it and
// recovers the missed updates from the store, then gets new ones live, each once
// and in order.
func TestRecoveryAcrossRestart(t *testing.T) {
	dir := t.TempDir()
	st := openStore(t, dir)
	a := startNode(t, st, "", "")
	h := &swapHandler{}
	h.set(a.WebSocketHandler())
	cl := dial(t, serve(t, h), "alice")
	appendUpdates(t, st, "alice", 10)
	cl.waitInOrder(t, 1, 10, 10*time.Second)

	shutdown(a, 5*time.Second)
	st.SetCommitHook(func(store.Commit) {})
	appendUpdates(t, st, "alice", 10) // no node runs: only the store has them
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}

	st = openStore(t, dir)
	defer st.Close()
	b := startNode(t, st, "", "")
	defer shutdown(b, 5*time.Second)
	h.set(b.WebSocketHandler())
	cl.waitInOrder(t, 1, 20, 30*time.Second)
	appendUpdates(t, st, "alice", 5)
	cl.waitInOrder(t, 1, 25, 10*time.Second)
}
