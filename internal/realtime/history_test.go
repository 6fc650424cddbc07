package realtime_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rtcagent/rtcagent/internal/protocol"
	"github.com/rtcagent/rtcagent/internal/realtime"
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

// TestLargeRecoveryIsPaged: the updates a client missed while no node ran are
// more bytes than a page of history. Centrifuge does not push them in the
// subscribe reply (one frame of everything): it reports the recovery failed,
// and the client refills with v1.update.list, whose pages are each within the
// bound.
func TestLargeRecoveryIsPaged(t *testing.T) {
	dir := t.TempDir()
	st := openStore(t, dir)
	a := startNode(t, st, "", "")
	h := &swapHandler{}
	h.set(a.WebSocketHandler())
	cl := dial(t, serve(t, h), "alice")
	appendUpdates(t, st, "alice", 2)
	cl.waitInOrder(t, 1, 2, 10*time.Second)

	shutdown(a, 5*time.Second)
	st.SetCommitHook(func(store.Commit) {})
	const missed, size = 20, 200 << 10
	big := strings.Repeat("x", size)
	for range missed {
		if err := st.Write(context.Background(), func(tx store.Tx) error {
			_, err := tx.UpdateAppend("alice", "test.note", map[string]string{"text": big})
			return err
		}); err != nil {
			t.Fatal(err)
		}
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	st = openStore(t, dir)
	defer st.Close()
	b := startNode(t, st, "", "")
	defer shutdown(b, 5*time.Second)
	h.set(b.WebSocketHandler())

	topic := realtime.TopicChannel("alice")
	var resub string
	waitFor(t, 30*time.Second, func() bool {
		cl.mu.Lock()
		defer cl.mu.Unlock()
		n := 0
		for _, e := range cl.log {
			if strings.Contains(e, "subscribed "+topic+" ") {
				if n++; n == 2 {
					resub = e
				}
			}
		}
		return resub != ""
	})
	if !strings.HasSuffix(resub, "recovered false") {
		t.Fatalf("the resubscription: %s", resub)
	}
	cl.mu.Lock()
	got := len(cl.offs)
	cl.mu.Unlock()
	if got != 2 {
		t.Fatalf("the client was pushed %d updates, want only the 2 before the restart", got)
	}

	bound := protocol.Limits{}.WithDefaults().PageBytes
	since, pages := int64(2), 0
	for since < 2+missed {
		params, _ := json.Marshal(protocol.UpdateListRequest{SinceOffset: since, Limit: 200})
		res, err := cl.c.RPC(context.Background(), protocol.MethodUpdateList, params)
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Data) > bound+64<<10 {
			t.Errorf("a page of v1.update.list is %d bytes", len(res.Data))
		}
		var page protocol.UpdateListResult
		if err := json.Unmarshal(res.Data, &page); err != nil || len(page.Updates) == 0 || page.Reset {
			t.Fatalf("page after %d: %d updates, reset %v, %v", since, len(page.Updates), page.Reset, err)
		}
		for _, u := range page.Updates {
			if u.Offset != since+1 {
				t.Fatalf("offset %d after %d", u.Offset, since)
			}
			since = u.Offset
		}
		pages++
	}
	if pages < missed*size/bound {
		t.Fatalf("%d pages", pages)
	}
}

func waitFor(t *testing.T, within time.Duration, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(within); !cond(); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("timed out")
		}
	}
}
