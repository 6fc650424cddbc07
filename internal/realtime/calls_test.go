package realtime_test

import (
	"context"
	"encoding/json"
	"runtime/metrics"
	"testing"

	"github.com/rtcagent/rtcagent/internal/protocol"
)

// A call starts no goroutine of its own on the server: Centrifuge starts one
// for each frame it reads, and the call's context comes from one made per
// connection (a context made from the client's own for each call would start
// another to watch it). The test's process also holds the client, whose
// library starts one a call.
func TestACallStartsNoGoroutineOfItsOwn(t *testing.T) {
	_, url := startLocalNode(t)
	cl := dial(t, url, "u-calls")
	params, _ := json.Marshal(protocol.ListRequest{Limit: 1})
	call := func() {
		if _, err := cl.c.RPC(context.Background(), protocol.MethodSessionList, params); err != nil {
			t.Fatal(err)
		}
	}
	call()
	created := func() uint64 {
		m := []metrics.Sample{{Name: "/sched/goroutines-created:goroutines"}}
		metrics.Read(m)
		return m[0].Value.Uint64()
	}
	const calls = 200
	before := created()
	for range calls {
		call()
	}
	if per := float64(created()-before) / calls; per > 2.5 {
		t.Fatalf("%.2f goroutines started a call, want 2: Centrifuge's for the frame and the client's", per)
	}
}
