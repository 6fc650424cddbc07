package bench

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"strings"
)

// RunCluster measures the load on several server processes (Options.Nodes).
func RunCluster(ctx context.Context, o Options) (*ClusterResult, error) {
	if o.Calls <= 0 || o.Duration <= 0 || len(o.Sessions) == 0 || len(o.Nodes) == 0 {
		return nil, errors.New("bench: nodes, sessions, duration and calls must be positive")
	}
	if _, ok := benchTools[o.Tool]; !ok {
		return nil, fmt.Errorf("bench: tool %q: use ls or write", o.Tool)
	}
	logf := func(format string, args ...any) {
		if o.Log != nil {
			fmt.Fprintf(o.Log, "bench: "+format+"\n", args...)
		}
	}
	return runCluster(ctx, o, logf)
}

// Table renders a `-nodes` run as Markdown: one row per node count and
// sessions point, then the speed-up of each node count over one node.
func (r *ClusterResult) Table() string {
	var b strings.Builder
	fmt.Fprintf(&b, "Backend: PostgreSQL + Redis, server child processes; %d tool calls per turn, each `%s`; %s per point; %d CPUs.\n\n",
		r.Calls, r.Tool, r.Duration, runtime.NumCPU())
	b.WriteString("| nodes | sessions per node | round trips/s (per node) | round trip p50 / p90 / p99 | CPU cores: servers / PostgreSQL backends / clients | PostgreSQL share of that CPU | PostgreSQL per round trip: statements / exchanges | turns, failed, clients with errors |\n")
	b.WriteString("|---|---|---|---|---|---|---|---|\n")
	for _, p := range r.Points {
		per := make([]string, len(p.PerNode))
		for i, n := range p.PerNode {
			per[i] = fmt.Sprintf("%.0f", float64(n)*p.PerSec/max(float64(p.RoundTrips), 1))
		}
		pg, share := "n/a", "n/a"
		if p.PGCPU >= 0 {
			pg = fmt.Sprintf("%.2f", p.PGCPU)
			if all := p.ServersCPU + p.PGCPU + p.ClientsCPU; all > 0 {
				share = fmt.Sprintf("%.0f %%", 100*p.PGCPU/all)
			}
		}
		work := "n/a"
		if p.RoundTrips > 0 {
			rt := float64(p.RoundTrips)
			work = fmt.Sprintf("%.1f / %.1f", float64(p.PG.Statements)/rt, float64(p.PG.Exchanges)/rt)
		}
		fmt.Fprintf(&b, "| %d | %d | **%.0f** (%s) | %.2f / %.2f / %.2f ms (n=%d) | %.2f / %s / %.2f | %s | %s | %d, %d, %d |\n",
			p.Nodes, p.SessionsPerNode, p.PerSec, strings.Join(per, " + "), p.RTT.P50, p.RTT.P90, p.RTT.P99, p.RTT.N,
			p.ServersCPU, pg, p.ClientsCPU, share, work, p.Turns, p.Failed, p.ClientErrors)
	}
	for _, p := range r.Points {
		if p.RoundTrips > 0 && len(p.Tables) > 0 {
			t := perTrip(p.Tables, p.RoundTrips)
			wal := ""
			if w := p.PGWAL; w != nil {
				rt := float64(p.RoundTrips)
				wal = fmt.Sprintf("; PostgreSQL WAL (the whole server's) %.1f records, %.2f full-page images, %s", float64(w.Records)/rt, float64(w.FPI)/rt, size(float64(w.Bytes)/rt))
			}
			fmt.Fprintf(&b, "\n%d nodes × %d sessions, per round trip: Topic rows / audit writes / audit reads %s; statements by table: %s%s\n",
				p.Nodes, p.SessionsPerNode, t.topic(), t, wal)
		}
	}
	// Speed-up over one node at the same sessions per node.
	one := map[int]float64{}
	for _, p := range r.Points {
		if p.Nodes == 1 {
			one[p.SessionsPerNode] = p.PerSec
		}
	}
	for _, p := range r.Points {
		if base := one[p.SessionsPerNode]; p.Nodes > 1 && base > 0 {
			fmt.Fprintf(&b, "\n%d nodes / 1 node at %d sessions per node: %.2f×", p.Nodes, p.SessionsPerNode, p.PerSec/base)
		}
	}
	b.WriteString("\n")
	return b.String()
}
