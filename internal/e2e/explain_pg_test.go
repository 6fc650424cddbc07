package e2e

import (
	"context"
	"encoding/json"
	"regexp"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/rtcagent/rtcagent/internal/config"
	"github.com/rtcagent/rtcagent/internal/protocol"
	"github.com/rtcagent/rtcagent/internal/store/pgstore"
)

// Every statement a tool round trip sends to PostgreSQL can be served by an
// index lookup on a freshly migrated database: EXPLAIN of each, with sequential
// scans priced out (enable_seqscan off, so a plan that still scans has no index
// to use), scans no table or index whole. A plan that depends on ANALYZE having run, or a
// statement whose table grows with use and has no index for it, fails here.
func TestRoundTripStatementsUseIndexes(t *testing.T) {
	db := requirePostgres(t)
	s := startServer(t, mustScript(t, oneWriteScript), func(c *config.Config) { c.DBURL = db })
	b := newBrowser(t, s, "alice", "dev-a")
	warm := b.send("", "warm up")
	b.waitTurn(warm.TurnID, 10*time.Second)

	var mu sync.Mutex
	seen := map[string][]any{}
	stop := pgstore.WatchStatements(func(sql string, args []any) {
		mu.Lock()
		defer mu.Unlock()
		if _, ok := seen[sql]; !ok {
			seen[sql] = args
		}
	})
	res := b.send(warm.SessionID, "again")
	if tr := b.waitTurn(res.TurnID, 10*time.Second); tr.Status != protocol.TurnCompleted {
		t.Fatalf("turn %s", tr.Status)
	}
	stop()

	ctx := context.Background()
	conn, err := pgx.Connect(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, "SET enable_seqscan = off"); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	queries := make([]string, 0, len(seen))
	for q := range seen {
		if explainable.MatchString(q) {
			queries = append(queries, q)
		}
	}
	sort.Strings(queries)
	if len(queries) < 10 {
		t.Fatalf("only %d statements seen", len(queries))
	}
	t.Logf("%d distinct statements of a turn with a tool round trip", len(queries))
	for _, q := range queries {
		var plan string
		if err := conn.QueryRow(ctx, "EXPLAIN (FORMAT JSON) "+q, seen[q]...).Scan(&plan); err != nil {
			t.Errorf("explain %s: %v", oneLine(q), err)
			continue
		}
		scans := seqScans(t, plan)
		if why, ok := scansKnown(q); ok && len(scans) > 0 {
			t.Logf("known: %s (%s)", why, strings.Join(scans, ", "))
			continue
		}
		if len(scans) > 0 {
			t.Errorf("scans %s whole: %s", strings.Join(scans, ", "), oneLine(q))
		}
	}
}

// scansKnown names the statements still known to scan, and why. The claim
// pass lists every session with inbox work and no live lease: the whole inbox
// and, against it, the leases and nodes. It is the one left, and the lean data
// path replaces it with a queue fetch on the work itself (FOR UPDATE SKIP
// LOCKED), which this test will then hold to an index lookup too.
func scansKnown(q string) (string, bool) {
	if strings.HasPrefix(oneLine(q), "SELECT i.session_id FROM inbox i WHERE NOT EXISTS") {
		return "the claim pass (InboxSessions) lists sessions over the whole inbox", true
	}
	return "", false
}

var explainable = regexp.MustCompile(`(?is)^\s*(SELECT|UPDATE|DELETE|INSERT|WITH)\b`)

// seqScans names the tables a JSON plan scans sequentially.
func seqScans(t *testing.T, plan string) []string {
	var doc []struct{ Plan map[string]any }
	if err := json.Unmarshal([]byte(plan), &doc); err != nil {
		t.Fatal(err)
	}
	var out []string
	var walk func(n map[string]any)
	walk = func(n map[string]any) {
		switch n["Node Type"] {
		case "Seq Scan":
			out = append(out, n["Relation Name"].(string))
		case "Index Scan", "Index Only Scan", "Bitmap Index Scan":
			if _, ok := n["Index Cond"]; !ok {
				out = append(out, n["Index Name"].(string)+" (the whole index)")
			}
		}
		kids, _ := n["Plans"].([]any)
		for _, k := range kids {
			if m, ok := k.(map[string]any); ok {
				walk(m)
			}
		}
	}
	for _, d := range doc {
		walk(d.Plan)
	}
	return out
}

func oneLine(q string) string { return strings.Join(strings.Fields(q), " ") }
