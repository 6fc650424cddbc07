package realtime_test

import (
	"context"
	"fmt"
	"net/url"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/rtcagent/rtcagent/internal/store"
	"github.com/rtcagent/rtcagent/internal/testkit/testsvc"
)

// TestRelayBrokerOutage: with Redis unreachable, commits never wait on the broker
// (printed: commit latency with Redis down); once Redis is back every client gets
// every update of its user, each once and in order.
func TestRelayBrokerOutage(t *testing.T) {
	redis, err := url.Parse(testsvc.RedisURL(t))
	if err != nil {
		t.Fatal(err)
	}
	proxy := newRedisProxy(t, redis.Host)
	st := openStore(t, t.TempDir())
	defer st.Close()
	node := startNode(t, st, proxy.url(), "rt"+testsvc.Unique())
	defer shutdown(node, 5*time.Second)
	h := &swapHandler{}
	h.set(node.WebSocketHandler())
	wsURL := serve(t, h)

	const users, writers, perWriter = 4, 8, 650 // 5,200 commits
	var clients []*client
	for u := range users {
		clients = append(clients, dial(t, wsURL, fmt.Sprintf("u%d", u)))
	}
	appendUpdates(t, st, "u0", 1) // the path works before the outage
	clients[0].waitInOrder(t, 1, 1, 10*time.Second)

	proxy.setCut(true)
	// Commits must not wait on the broker; a minute for 5,200 commits is far above
	// what they take either way, unless each waits on publication retries.
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	lat := make([][]time.Duration, writers)
	var wg sync.WaitGroup
	for w := range writers {
		wg.Go(func() {
			user := fmt.Sprintf("u%d", w%users)
			for i := range perWriter {
				t0 := time.Now()
				err := st.Write(ctx, func(tx store.Tx) error {
					_, err := tx.UpdateAppend(user, "test.note", map[string]int{"w": w, "i": i})
					return err
				})
				if err != nil {
					t.Errorf("commit with the broker down: %v", err)
					return
				}
				lat[w] = append(lat[w], time.Since(t0))
			}
		})
	}
	wg.Wait()
	if t.Failed() {
		t.FailNow()
	}
	all := slices.Concat(lat...)
	slices.Sort(all)
	t.Logf("commit latency with Redis down: %d commits, p50 %v, p99 %v, max %v",
		len(all), all[len(all)/2], all[len(all)*99/100], all[len(all)-1])

	proxy.setCut(false)
	for u, cl := range clients {
		last := uint64(writers / users * perWriter)
		if u == 0 {
			last++
		}
		cl.waitInOrder(t, 1, last, time.Minute)
	}
}

// TestRelayShutdownHonoursContext: with the broker down and updates pending,
// Shutdown returns when its context ends instead of draining.
func TestRelayShutdownHonoursContext(t *testing.T) {
	redis, err := url.Parse(testsvc.RedisURL(t))
	if err != nil {
		t.Fatal(err)
	}
	proxy := newRedisProxy(t, redis.Host)
	st := openStore(t, t.TempDir())
	defer st.Close()
	node := startNode(t, st, proxy.url(), "rt"+testsvc.Unique())
	proxy.setCut(true)
	for u := range 20 {
		appendUpdates(t, st, fmt.Sprintf("u%d", u), 10)
	}
	took := shutdown(node, time.Second)
	t.Logf("shutdown with a 1s context and the broker down took %v", took)
	if took > 5*time.Second {
		t.Fatalf("shutdown took %v with a 1s context", took)
	}
}

func shutdown(n interface{ Shutdown(context.Context) error }, within time.Duration) time.Duration {
	ctx, cancel := context.WithTimeout(context.Background(), within)
	defer cancel()
	t0 := time.Now()
	_ = n.Shutdown(ctx)
	return time.Since(t0)
}
