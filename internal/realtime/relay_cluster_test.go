package realtime_test

import (
	"context"
	"net/url"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/centrifugal/protocol"
	"github.com/redis/go-redis/v9"

	"github.com/rtcagent/rtcagent/internal/store"
	"github.com/rtcagent/rtcagent/internal/store/pgstore"
	"github.com/rtcagent/rtcagent/internal/testkit/testsvc"
)

// TestRelayOverflowPublishesOnlyItsOwnUpdates: two nodes write one user's
// stream in PostgreSQL, in turns. Node A's broker is down while it commits more
// updates than its relay holds in memory, so the relay reads them back from the
// store, where the other node's updates sit between its own. Once Redis is back,
// what A publishes (watched on Redis itself) is each of its own updates once, in
// offset order, and none of the other node's, which that node publishes itself.
func TestRelayOverflowPublishesOnlyItsOwnUpdates(t *testing.T) {
	pgURL := testsvc.PostgresURL(t)
	redisURL := testsvc.RedisURL(t)
	schema := testsvc.Schema(t, pgURL)
	ctx := context.Background()
	open := func() store.Store {
		st, err := pgstore.Open(ctx, pgURL, pgstore.Options{Schema: schema})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		return st
	}
	stA, stB := open(), open()

	// Watch the broker: every publication of the user's topic channel on Redis.
	opt, err := redis.ParseURL(redisURL)
	if err != nil {
		t.Fatal(err)
	}
	rc := redis.NewClient(opt)
	defer rc.Close()
	prefix := "rt" + testsvc.Unique()
	sub := rc.PSubscribe(ctx, prefix+".client.*")
	defer sub.Close()
	if _, err := sub.Receive(ctx); err != nil { // the subscription is in place
		t.Fatal(err)
	}
	var mu sync.Mutex
	var published []int64
	seen := make(chan struct{}, 1)
	go func() {
		for m := range sub.Channel() {
			var pub protocol.Publication
			if err := pub.UnmarshalCF([]byte(m.Payload)); err != nil {
				t.Errorf("publication on %s: %v", m.Channel, err)
				continue
			}
			offset, err := strconv.ParseInt(pub.Tags["_o"], 10, 64) // the store offset the relay stamps
			if err != nil {
				t.Errorf("publication without its store offset: %v", pub.Tags)
				continue
			}
			mu.Lock()
			published = append(published, offset)
			mu.Unlock()
			select {
			case seen <- struct{}{}:
			default:
			}
		}
	}()

	rh, err := url.Parse(redisURL)
	if err != nil {
		t.Fatal(err)
	}
	proxy := newRedisProxy(t, rh.Host)
	nodeA := startNode(t, stA, proxy.url(), prefix)
	defer shutdown(nodeA, 5*time.Second)
	proxy.setCut(true)

	// A commits 43 runs of 100 updates (past the 4,096 its relay holds), B one
	// update after each run, and A one more at the end. A transaction makes
	// one update per user.
	const user = "u"
	var mine []int64
	write := func(st store.Store, n int) {
		for range n {
			err := st.Write(ctx, func(tx store.Tx) error {
				u, err := tx.UpdateAppend(user, "test.note", map[string]int{"n": n})
				if err == nil && st == stA {
					mine = append(mine, u.Offset)
				}
				return err
			})
			if err != nil {
				t.Fatal(err)
			}
		}
	}
	for range 43 {
		write(stA, 100)
		write(stB, 1)
	}
	write(stA, 1)
	last := mine[len(mine)-1]

	proxy.setCut(false)
	// A publishes in offset order, so once its last update is out, everything it
	// was going to publish is.
	deadline := time.After(time.Minute)
	for {
		mu.Lock()
		done := slices.Contains(published, last)
		mu.Unlock()
		if done {
			break
		}
		select {
		case <-seen:
		case <-deadline:
			mu.Lock()
			t.Fatalf("node A's last update %d not published within a minute; %d publications", last, len(published))
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if !slices.Equal(published, mine) {
		var foreign, repeated int
		count := map[int64]int{}
		for _, o := range published {
			count[o]++
			if count[o] == 2 {
				repeated++
			}
			if !slices.Contains(mine, o) {
				foreign++
			}
		}
		var missing []int64
		for _, o := range mine {
			if count[o] == 0 {
				missing = append(missing, o)
			}
		}
		t.Fatalf("node A published %d updates (%d of the other node's, %d more than once, %d of its own missing: %v), want its own %d once each in order",
			len(published), foreign, repeated, len(missing), head64(missing), len(mine))
	}
}

func head64(o []int64) []int64 { return o[:min(len(o), 20)] }
