package bench

import (
	"context"
	"runtime/trace"
	"strings"
	"testing"
	"time"
)

// TestTinyRun runs the whole tool on a tiny configuration, with a tool that has
// effects (reported executing first), and checks the table
// has every row with sane numbers; timings are not asserted.
func TestTinyRun(t *testing.T) {
	o := Options{Sessions: []int{1, 5}, Duration: 3 * time.Second, Warmup: 500 * time.Millisecond, Calls: 1, Tool: "write", Idle: 20, FloorN: 100,
		History: []int{10}, Handoffs: !trace.IsEnabled()}
	res, err := Run(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Points) != 2 {
		t.Fatalf("%d points", len(res.Points))
	}
	// A loaded machine (the whole suite under the race detector) may finish few
	// turns in the window: rows must be consistent, not fast.
	for _, p := range res.Points {
		if p.RoundTrips == 0 || p.PerSec <= 0 || p.RTT.N != p.RoundTrips || p.RTT.P50 <= 0 ||
			p.RTT.P50 > p.RTT.P90 || p.RTT.P90 > p.RTT.P99 || (p.Live.N > 0) != (p.Live.P50 > 0) {
			t.Errorf("point %+v", p)
		}
		// Calls reach their clients by publication, so the clients report
		// their shares (but for calls answered at the window's edges); a
		// round trip holds its client's share.
		if s := p.ServerRTT; s.N*10 < p.RTT.N*9 || s.P50 <= 0 || s.P50 > s.P90 || s.P90 > s.P99 || s.P50 > p.RTT.P99 {
			t.Errorf("%d sessions: the server's share %+v of round trips %+v", p.Sessions, s, p.RTT)
		}
		// A round trip starts a goroutine at least: the frame that carries
		// its result is read on one of its own.
		if rt := p.Server; rt.Started < uint64(p.RoundTrips) || rt.Objects == 0 || rt.Bytes < rt.Objects {
			t.Errorf("%d sessions: runtime counts %+v for %d round trips", p.Sessions, rt, p.RoundTrips)
		}
		// The window's trace sees the same: a goroutine started and
		// goroutines woken for each round trip, and who readied them.
		if h := p.Handoffs; o.Handoffs && (h == nil || h.Started < 1 || h.Runnable < 1 || len(h.By) == 0) {
			t.Errorf("%d sessions: hand-offs %+v", p.Sessions, h)
		}
		if p.Failed != 0 || p.ClientErrors != 0 {
			t.Errorf("%d sessions: %d failed turns, %d clients with errors", p.Sessions, p.Failed, p.ClientErrors)
		}
		// Every round trip records its call and result on the Topic and in
		// the call's row (with its audit record): the counts by table see both.
		if p.Tables["insert updates"] < int64(p.RoundTrips) || p.Tables["insert rtcs"]+p.Tables["update rtcs"] < int64(p.RoundTrips) {
			t.Errorf("%d sessions: statements by table %v for %d round trips", p.Sessions, p.Tables, p.RoundTrips)
		}
		// A commit's WAL frames are one write call, or one per 31 pages
		// (128 KiB) when it is larger (walvfs).
		if q := p.SQLite; q.WALWrites <= 0 || q.WALWrites > q.Commits+q.Pages/31 {
			t.Errorf("%d sessions: %d WAL write calls for %d commits of %d pages", p.Sessions, q.WALWrites, q.Commits, q.Pages)
		}
	}
	if len(res.History) != 1 || res.History[0].Ours.Bytes <= 0 || res.History[0].Stateless.Bytes <= 0 {
		t.Errorf("history %+v", res.History)
	}
	if res.Idle == nil || res.Idle.Conns != 20 || res.Idle.Method == "" {
		t.Errorf("idle %+v", res.Idle)
	}
	if res.Floor.Publish.N != 100 || res.Floor.Commit.N != 100 || res.Floor.Publish.P50 <= 0 || res.Floor.Commit.P50 <= 0 ||
		res.Floor.Echo.N != 100 || res.Floor.Echo.P50 <= 0 || res.Floor.EchoApart {
		t.Errorf("floor %+v", res.Floor)
	}
	// A floor commit appends one row: its table's page and its index's, at least.
	if f := res.Floor.SQLite; f.Held <= 0 || f.Pages < 2 {
		t.Errorf("SQLite floor %+v", f)
	}
	tab := res.Table()
	t.Log("\n" + tab)
	want := []string{"| 1 | RTC round trip, server overhead, 1 sessions", "| 1 | RTC round trip, server overhead, 5 sessions",
		"| 2 | sustained RTC round trips/s (best)", "| 3 | memory per idle connection (20 connections)",
		"| 4 | Live chunk latency", "| 5 | floor: bare Centrifuge publish", "| 5 | floor: one store commit", "WAL pages |", "commits at the floor: ", "| 5 | ours / floor", "| 2 | Thread sleeps per round trip, 1 sessions",
		"| 2 | Goroutines started per round trip, 1 sessions (server and clients)",
		"| 1 | the same less the client's share (its call's arrival → its result sent), 1 sessions", "| 5 | ours less the client's share / floor, 5 sessions",
		"| 5 | floor: a round trip's crossings bare, publish → client (in this process) → its RPC back",
		"| 5 | ours less the client's share, 1 session, p50: 2× the crossings and 3 commits at the floor / the rest",
		"| 6 | per tool call at 10 messages: upstream bytes / round trip p50 | RTC Agent "}
	if o.Handoffs {
		want = append(want, "| 2 | Hand-offs per round trip, 1 sessions (server and clients; a runtime trace of the window",
			"| 2 | Goroutines made runnable or started per round trip, 5 sessions (server and clients), by who readied them")
	}
	for _, want := range want {
		if !strings.Contains(tab, want) {
			t.Errorf("table lacks %q", want)
		}
	}
}

func TestUnstamps(t *testing.T) {
	a, b := time.Unix(0, 123), time.Unix(0, 456)
	got := unstamps(stamp(a) + stamp(b) + "[t=x]")
	if len(got) != 2 || !got[0].Equal(a) || !got[1].Equal(b) {
		t.Fatalf("%v", got)
	}
}

// TestServerShare: a round trip less its client's share, for the calls whose
// client reported one.
func TestServerShare(t *testing.T) {
	got := serverShare([]time.Duration{10, 20, 30}, []string{"a", "b", "c"}, map[string]time.Duration{"a": 4, "c": 30, "x": 1})
	if len(got) != 2 || got[0] != 6 || got[1] != 0 {
		t.Fatalf("%v", got)
	}
}
