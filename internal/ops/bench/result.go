package bench

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/rtcagent/rtcagent/internal/store"
	"github.com/rtcagent/rtcagent/internal/store/pgstore"
	"github.com/rtcagent/rtcagent/internal/store/sqlitestore"
	"github.com/rtcagent/rtcagent/internal/tools"
)

// Pcts are percentiles of a sample, in milliseconds; N is the sample size.
type Pcts struct {
	N             int
	P50, P90, P99 float64
}

func pcts(d []time.Duration) Pcts {
	if len(d) == 0 {
		return Pcts{}
	}
	s := slices.Clone(d)
	slices.Sort(s)
	at := func(p float64) float64 { return float64(s[int(p*float64(len(s)-1))]) / float64(time.Millisecond) }
	return Pcts{N: len(s), P50: at(0.5), P90: at(0.9), P99: at(0.99)}
}

// Point is one concurrency point of the load.
type Point struct {
	Sessions     int
	RoundTrips   int     // RTC round trips completed in the window
	Turns        int     // turns completed in the window
	Failed       int     // turns that ended other than completed, or sends that failed
	ClientErrors int     // clients that saw a protocol violation or an execution failure
	PerSec       float64 // RoundTrips / window
	RTT          Pcts    // model emits a tool call → the model's next request
	// ServerRTT is RTT less the client's share (load.Held): what the server
	// and the transport took, the client's decoding and answering left out.
	ServerRTT Pcts
	Live      Pcts // model emits a text chunk → the client receives its delta
	// PG is what this process sent to PostgreSQL in the window (zero when
	// embedded); divided by RoundTrips it is the database work of a round trip,
	// a figure that does not depend on how busy the machine is.
	PG pgstore.Counts
	// SQLite is what this process committed to SQLite in the window (zero
	// with PostgreSQL): pages written to the WAL, writes and their commits.
	SQLite sqlitestore.Counts
	// Tables is what this process's statements did to each table in the
	// window ("insert updates", "select audit"), on either store.
	Tables store.TableCounts
	// ServerCPU is the CPU this process used in the window, in cores: the
	// server's, with the clients' when they share the process. ClientsCPU is
	// the clients' process's when ClientsApart.
	ServerCPU, ClientsCPU float64
	// Server is what this process counted of itself in the window (with the
	// clients' when they share it): heap objects and bytes allocated,
	// goroutines started, and its threads' sleeps (voluntary context
	// switches: for a goroutine to run, I/O or a timer; -1 when not measured).
	Server       ownCounts
	ClientsApart bool
	// Handoffs is what a runtime trace of the window counts (Options.Handoffs).
	Handoffs *Handoffs `json:",omitempty"`
	// PGCPU is the CPU the PostgreSQL server processes of this run's
	// connections used in the window, in cores; negative when not measured
	// (embedded, or a server on another machine).
	PGCPU float64
	// PGRowsRead is, by table, the rows PostgreSQL's scans read in the window
	// (pg_stat_user_tables of the run's schema); nil when not measured.
	PGRowsRead map[string]int64
	// PGWAL is what the PostgreSQL server wrote to its WAL in the window; nil
	// when not measured.
	PGWAL *PGWAL
}

// Idle is the memory row.
type Idle struct {
	Conns        int
	BytesPerConn float64
	Method       string // how it was measured
}

// Floor is the same-machine floor of one round trip's parts.
type Floor struct {
	Publish Pcts // bare Centrifuge publish → centrifuge-go client receive
	// Echo is a round trip's crossings bare: a publish reaches a client,
	// whose RPC answering it at once reaches the node (echoFloor); across
	// processes when EchoApart, as the load's clients ran.
	Echo      Pcts
	EchoApart bool
	Commit    Pcts        // one store.Write with one UpdateAppend on the run's backend
	SQLite    SQLiteFloor // zero on PostgreSQL
	PG        PGFloor
}

// Result is one run.
type Result struct {
	Backend  string
	Calls    int
	Tool     string
	Duration time.Duration
	Points   []Point
	Floor    Floor
	Idle     *Idle          // nil when skipped
	History  []HistoryPoint // row 6; empty when skipped
}

// BestPerSec is the highest sustained round-trip rate of the run.
func (r *Result) BestPerSec() (float64, int) {
	best, at := 0.0, 0
	for _, p := range r.Points {
		if p.PerSec > best {
			best, at = p.PerSec, p.Sessions
		}
	}
	return best, at
}

// Table renders the run as one Markdown table.
func (r *Result) Table() string {
	var b strings.Builder
	fmt.Fprintf(&b, "Backend: %s; %d tool calls per turn, each `%s`; %s per point.\n\n", r.Backend, r.Calls, r.Tool, r.Duration)
	b.WriteString("| # | metric | result | goal |\n|---|---|---|---|\n")
	row := func(n, metric, result, goal string) {
		fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", n, metric, result, goal)
	}
	for _, p := range r.Points {
		row("1", fmt.Sprintf("RTC round trip, server overhead, %d sessions: p50 / p90 / p99", p.Sessions),
			fmt.Sprintf("%.2f / %.2f / %.2f ms (n=%d)", p.RTT.P50, p.RTT.P90, p.RTT.P99, p.RTT.N), "p50 ≤ 2 ms, p99 ≤ 10 ms")
		if s := p.ServerRTT; s.N > 0 {
			row("1", fmt.Sprintf("the same less the client's share (its call's arrival → its result sent), %d sessions: p50 / p90 / p99", p.Sessions),
				fmt.Sprintf("%.2f / %.2f / %.2f ms (n=%d)", s.P50, s.P90, s.P99, s.N), "")
		}
	}
	for _, p := range r.Points {
		row("2", fmt.Sprintf("RTC round trips/s, %d sessions", p.Sessions),
			fmt.Sprintf("%.0f (%d turns, %d failed, %d clients with errors)", p.PerSec, p.Turns, p.Failed, p.ClientErrors), "")
	}
	for _, p := range r.Points {
		if p.PG.Statements == 0 || p.RoundTrips == 0 {
			continue
		}
		n := float64(p.RoundTrips)
		row("2", fmt.Sprintf("PostgreSQL work per round trip, %d sessions: statements / exchanges / write + read transactions", p.Sessions),
			fmt.Sprintf("%.1f / %.1f / %.2f + %.2f", float64(p.PG.Statements)/n, float64(p.PG.Exchanges)/n,
				float64(p.PG.Writes)/n, float64(p.PG.Reads)/n), "")
	}
	for _, p := range r.Points {
		if len(p.Tables) == 0 || p.RoundTrips == 0 {
			continue
		}
		row("2", fmt.Sprintf("Per round trip, %d sessions: Topic rows / audit writes (in the call's row) / audit reads", p.Sessions), perTrip(p.Tables, p.RoundTrips).topic(), "≤ 3 / ≤ 2 / 0")
		row("2", fmt.Sprintf("Statements per round trip by table, %d sessions", p.Sessions), perTrip(p.Tables, p.RoundTrips).String(), "")
		if len(p.PGRowsRead) > 0 {
			row("2", fmt.Sprintf("PostgreSQL rows read per round trip by table, %d sessions (scans and index fetches)", p.Sessions), rowsPerTrip(p.PGRowsRead, p.RoundTrips), "")
		}
		if w := p.PGWAL; w != nil {
			n := float64(p.RoundTrips)
			row("2", fmt.Sprintf("PostgreSQL WAL per round trip, %d sessions (the whole server's): records / full-page images / bytes", p.Sessions),
				fmt.Sprintf("%.1f / %.2f / %s", float64(w.Records)/n, float64(w.FPI)/n, size(float64(w.Bytes)/n)), "")
		}
	}
	for _, p := range r.Points {
		if p.SQLite.Commits == 0 || p.RoundTrips == 0 {
			continue
		}
		n := float64(p.RoundTrips)
		commits := float64(p.SQLite.Commits) / n
		floor := ""
		if f := r.Floor.SQLite; f.Held > 0 {
			// What the round trip's commits would cost were each the floor's.
			floor = fmt.Sprintf("; its %.2f commits at the floor: %.1f pages, writer %.3f ms", commits, commits*f.Pages,
				commits*float64(f.Held)/1e6)
		}
		row("2", fmt.Sprintf("SQLite work per round trip, %d sessions: WAL pages / WAL write calls / writes / commits / writer held / reads", p.Sessions),
			fmt.Sprintf("%.1f / %.2f / %.2f / %.2f / %.3f ms / %.2f%s", float64(p.SQLite.Pages)/n, float64(p.SQLite.WALWrites)/n, float64(p.SQLite.Writes)/n, commits,
				float64(p.SQLite.Held)/n/1e6, float64(p.SQLite.Reads)/n, floor), "≤ 12 pages, ≤ 2 writes, writer ≤ 0.1 ms (#28)")
		if w := float64(p.SQLite.Writes); w > 0 {
			row("2", fmt.Sprintf("SQLite writes, %d sessions: run off the writer and kept / run off it and again under it / run under it alone", p.Sessions),
				fmt.Sprintf("%.0f %% / %.0f %% / %.0f %%", 100*float64(p.SQLite.Prepared)/w, 100*float64(p.SQLite.Rerun)/w,
					100*float64(p.SQLite.Writes-p.SQLite.Prepared-p.SQLite.Rerun)/w), "")
		}
	}
	for _, p := range r.Points {
		// CPU per round trip in ms: cores / (round trips per second) * 1000.
		per := func(cores float64) string {
			if p.PerSec <= 0 {
				return ""
			}
			return fmt.Sprintf(" (%.2f ms a round trip)", cores/p.PerSec*1000)
		}
		pg := ""
		if p.PGCPU >= 0 && p.PG.Statements > 0 {
			pg = fmt.Sprintf("; PostgreSQL backends of this run %.2f%s", p.PGCPU, per(p.PGCPU))
			n := float64(p.RoundTrips)
			if f := r.Floor.PG.Of(float64(p.PG.Writes)/n, float64(p.PG.Exchanges)/n); f > 0 && p.PerSec > 0 {
				ms := float64(f) / 1e6
				pg += fmt.Sprintf(", %.1f× the %.2f ms its commits and exchanges cost at the floor", p.PGCPU/p.PerSec*1000/ms, ms)
			}
		}
		if p.ClientsApart {
			row("2", fmt.Sprintf("CPU in the window in cores, %d sessions: server process / clients process", p.Sessions),
				fmt.Sprintf("%.2f%s / %.2f%s%s", p.ServerCPU, per(p.ServerCPU), p.ClientsCPU, per(p.ClientsCPU), pg), "")
		} else {
			row("2", fmt.Sprintf("CPU in the window in cores, %d sessions: server and clients (one process)", p.Sessions),
				fmt.Sprintf("%.2f%s%s", p.ServerCPU, per(p.ServerCPU), pg), "")
		}
		if n := float64(p.RoundTrips); n > 0 {
			who := "server"
			if !p.ClientsApart {
				who = "server and clients"
			}
			row("2", fmt.Sprintf("Heap allocations per round trip, %d sessions (%s): objects / bytes", p.Sessions, who),
				fmt.Sprintf("%.0f / %s", float64(p.Server.Objects)/n, size(float64(p.Server.Bytes)/n)), "")
			row("2", fmt.Sprintf("Goroutines started per round trip, %d sessions (%s)", p.Sessions, who),
				fmt.Sprintf("%.2f", float64(p.Server.Started)/n), "")
			if h := p.Handoffs; h != nil {
				row("2", fmt.Sprintf("Hand-offs per round trip, %d sessions (%s; a runtime trace of the window, which slows it): goroutines made runnable / started / run first on another processor / processors woken", p.Sessions, who),
					fmt.Sprintf("%.2f / %.2f / %.2f / %.2f", h.Runnable, h.Started, h.Elsewhere, h.ProcsWoken), "")
				var by []string
				for _, b := range h.By[:min(len(h.By), 8)] {
					by = append(by, fmt.Sprintf("%s %.2f", b.Where, b.Count))
				}
				row("2", fmt.Sprintf("Goroutines made runnable or started per round trip, %d sessions (%s), by who readied them (the eight most, each 0.1 or more)", p.Sessions, who), strings.Join(by, "; "), "")
			}
			if p.Server.Sleeps >= 0 {
				row("2", fmt.Sprintf("Thread sleeps per round trip, %d sessions (%s; voluntary context switches: waits for work, I/O or a timer, the Go runtime's monitor thread's among them)", p.Sessions, who),
					fmt.Sprintf("%.1f", float64(p.Server.Sleeps)/n), "")
			}
		}
	}
	best, at := r.BestPerSec()
	row("2", "sustained RTC round trips/s (best)", fmt.Sprintf("**%.0f** at %d sessions", best, at), "≥ 2,000")
	if r.Idle != nil {
		row("3", fmt.Sprintf("memory per idle connection (%d connections)", r.Idle.Conns),
			fmt.Sprintf("%.1f KiB (%s)", r.Idle.BytesPerConn/1024, r.Idle.Method), "≤ 30 KiB")
	} else {
		row("3", "memory per idle connection", "skipped (-idle 0)", "≤ 30 KiB")
	}
	for _, p := range r.Points {
		live := fmt.Sprintf("%.2f / %.2f ms (n=%d)", p.Live.P50, p.Live.P99, p.Live.N)
		if p.Live.N == 0 {
			live = "no samples: no turn reached its final text step in the window"
		}
		row("4", fmt.Sprintf("Live chunk latency, model chunk → client, %d sessions: p50 / p99", p.Sessions), live, "")
	}
	f := r.Floor
	row("5", "floor: bare Centrifuge publish → client receive, p50 / p99",
		fmt.Sprintf("%.3f / %.3f ms (n=%d)", f.Publish.P50, f.Publish.P99, f.Publish.N), "")
	commit := fmt.Sprintf("%.3f / %.3f ms (n=%d)", f.Commit.P50, f.Commit.P99, f.Commit.N)
	if f.SQLite.Held > 0 {
		commit += fmt.Sprintf("; a commit held the writer %.3f ms (mean) and wrote %.1f WAL pages", float64(f.SQLite.Held)/1e6, f.SQLite.Pages)
	}
	row("5", "floor: one store commit (Write + UpdateAppend), p50 / p99", commit, "")
	if f.PG.CommitCPU > 0 {
		row("5", "floor: PostgreSQL backend CPU of an exchange (SELECT 1) / of a write transaction in one exchange (one row)",
			fmt.Sprintf("%.3f / %.3f ms", float64(f.PG.ExchangeCPU.Nanoseconds())/1e6, float64(f.PG.CommitCPU.Nanoseconds())/1e6), "")
	}
	if f.Echo.N > 0 {
		where := "in this process"
		if f.EchoApart {
			where = "in its own process"
		}
		row("5", fmt.Sprintf("floor: a round trip's crossings bare, publish → client (%s) → its RPC back, p50 / p99", where),
			fmt.Sprintf("%.3f / %.3f ms (n=%d)", f.Echo.P50, f.Echo.P99, f.Echo.N), "")
	}
	fp50, fp99 := f.Publish.P50+f.Commit.P50, f.Publish.P99+f.Commit.P99
	for _, p := range r.Points {
		row("5", fmt.Sprintf("ours / floor (publish + commit), %d sessions: p50 / p99", p.Sessions),
			fmt.Sprintf("%.1f× / %.1f×", ratio(p.RTT.P50, fp50), ratio(p.RTT.P99, fp99)), "≤ 10×")
		if s := p.ServerRTT; s.N > 0 {
			row("5", fmt.Sprintf("ours less the client's share / floor, %d sessions: p50 / p99", p.Sessions),
				fmt.Sprintf("%.1f× / %.1f×", ratio(s.P50, fp50), ratio(s.P99, fp99)), "")
			if f.Echo.N > 0 && p.Sessions == 1 {
				// What the machine costs a lone round trip at the least, and
				// what is left: the server's work. Between a call's stream
				// and the next request a round trip commits its call and
				// its result, and crosses over and back once; a tool with
				// effects reports executing first, one commit and one RPC
				// more. With more sessions the rest would hold their waits
				// for one another too.
				crossings, commits := 1.0, 2.0
				if !tools.ReadOnly(r.Tool) {
					crossings, commits = 2, 3
				}
				machine := crossings*f.Echo.P50 + commits*f.Commit.P50
				row("5", fmt.Sprintf("ours less the client's share, 1 session, p50: %.0f× the crossings and %.0f commits at the floor / the rest", crossings, commits),
					fmt.Sprintf("%.3f / %.3f ms", machine, s.P50-machine), "")
			}
		}
	}
	for _, h := range r.History {
		row("6", fmt.Sprintf("per tool call at %d messages: upstream bytes / round trip %s", h.Target, pctsLabel(h.Ours.RTT)),
			fmt.Sprintf("RTC Agent %s / %s; stateless %s / %s (%d messages, %d calls each; stateless sends %.0f× the bytes)",
				size(h.Ours.Bytes), pctsValue(h.Ours.RTT), size(h.Stateless.Bytes), pctsValue(h.Stateless.RTT),
				h.Messages, h.Calls, ratio(h.Stateless.Bytes, h.Ours.Bytes)), "")
	}
	return b.String()
}

// p99Min is the sample size from which a p99 is printed: below it, the p99 is
// just the slowest sample.
const p99Min = 100

func pctsLabel(p Pcts) string {
	if p.N >= p99Min {
		return "p50 / p99"
	}
	return "p50"
}

func pctsValue(p Pcts) string {
	if p.N >= p99Min {
		return fmt.Sprintf("%.2f / %.2f ms", p.P50, p.P99)
	}
	return fmt.Sprintf("%.2f ms", p.P50)
}

// size renders a byte count: B below 1 KiB, KiB above.
func size(b float64) string {
	if b < 1024 {
		return fmt.Sprintf("%.0f B", b)
	}
	return fmt.Sprintf("%.1f KiB", b/1024)
}

func ratio(a, b float64) float64 {
	if b <= 0 {
		return 0
	}
	return a / b
}

// rowsPerTrip lists the tables that had rows read, by name, with rows per round trip.
func rowsPerTrip(rows map[string]int64, trips int) string {
	names := make([]string, 0, len(rows))
	var all int64
	for k, v := range rows {
		if v > 0 {
			names = append(names, k)
			all += v
		}
	}
	sort.Strings(names)
	parts := make([]string, 0, len(names)+1)
	for _, k := range names {
		parts = append(parts, fmt.Sprintf("%s %.2f", k, float64(rows[k])/float64(trips)))
	}
	return fmt.Sprintf("%.1f in all: %s", float64(all)/float64(trips), strings.Join(parts, ", "))
}
