package e2e

import (
	"context"
	"encoding/json"
	"net/url"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/rtcagent/rtcagent/internal/config"
	"github.com/rtcagent/rtcagent/internal/protocol"
	"github.com/rtcagent/rtcagent/internal/server"
	"github.com/rtcagent/rtcagent/internal/store"
	"github.com/rtcagent/rtcagent/internal/store/pgstore"
	"github.com/rtcagent/rtcagent/internal/testkit/testserver"
)

// Every statement a tool round trip sends to PostgreSQL can be served by an
// index lookup on a freshly migrated database: EXPLAIN of each, with sequential
// scans priced out (enable_seqscan off, so a plan that still scans has no index
// to use), scans no table or index whole, and reads no rows of a non-unique
// index only to filter them out (a lookup that grows with rows it discards, like
// a turn's open calls among all its calls). A plan that depends on ANALYZE
// having run, or a statement whose table grows with use and has no index for
// it, fails here.
func TestRoundTripStatementsUseIndexes(t *testing.T) {
	db := requirePostgres(t)
	s := startServer(t, mustScript(t, oneWriteScript), func(c *config.Config) { c.DBURL = db })
	b := newBrowser(t, s, "alice", "dev-a")
	warm := b.send("", "warm up")
	b.waitTurn(warm.TurnID, 10*time.Second)

	claims := claimStore(t, db) // opened before the watch: a start reads the whole inbox once
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
	// What every node's claim pass reads, and its liveness renewal sends
	// each second, whether or not one ran.
	if err := claims.Read(context.Background(), func(tx store.Tx) error { _, err := tx.InboxSessions(10); return err }); err != nil {
		t.Fatal(err)
	}
	if err := claims.Write(context.Background(), func(tx store.Tx) error {
		if err := tx.NodeBeat("a node", 3*time.Second); err != nil {
			return err
		}
		_, err := tx.OtherNodeAlive("a node")
		return err
	}); err != nil {
		t.Fatal(err)
	}
	stop()

	ctx := context.Background()
	conn, err := pgx.Connect(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, "SET enable_seqscan = off; SET plan_cache_mode = force_generic_plan"); err != nil {
		t.Fatal(err)
	}
	unique := map[string]bool{}
	rows, err := conn.Query(ctx, `SELECT c.relname FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid WHERE i.indisunique`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			t.Fatal(err)
		}
		unique[name] = true
	}
	if rows.Close(); rows.Err() != nil {
		t.Fatal(rows.Err())
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
		if scans := seqScans(t, plan, unique); len(scans) > 0 {
			t.Errorf("not an index lookup: %s: %s", strings.Join(scans, ", "), oneLine(q))
		}
		// The store's connections run every statement on its generic plan
		// (pgstore: plan_cache_mode), planned without the arguments' values.
		if plan, err = genericPlan(ctx, conn, q, seen[q]); err != nil {
			t.Errorf("explain the generic plan of %s: %v", oneLine(q), err)
			continue
		}
		if scans := seqScans(t, plan, unique); len(scans) > 0 {
			t.Errorf("not an index lookup in its generic plan: %s: %s", strings.Join(scans, ", "), oneLine(q))
		}
	}
}

// genericPlan explains the plan PostgreSQL keeps for q prepared, planned
// without its arguments' values (PostgreSQL 15 has no EXPLAIN (GENERIC_PLAN)).
func genericPlan(ctx context.Context, conn *pgx.Conn, q string, args []any) (string, error) {
	if _, err := conn.Exec(ctx, "PREPARE rt_generic AS "+q); err != nil {
		return "", err
	}
	defer func() { _, _ = conn.Exec(ctx, "DEALLOCATE rt_generic") }()
	ps := make([]string, len(args))
	for i := range args {
		ps[i] = "$" + strconv.Itoa(i+1)
	}
	call := "EXECUTE rt_generic"
	if len(ps) > 0 {
		call += "(" + strings.Join(ps, ", ") + ")"
	}
	// EXECUTE's arguments as literals: a parameter of EXPLAIN EXECUTE is not
	// one PostgreSQL describes.
	var plan string
	err := conn.QueryRow(ctx, "EXPLAIN (FORMAT JSON) "+call, append([]any{pgx.QueryExecModeSimpleProtocol}, args...)...).Scan(&plan)
	return plan, err
}

// claimStore opens a store on db's schema, as another node would.
func claimStore(t *testing.T, db string) *pgstore.Store {
	u, err := url.Parse(db)
	if err != nil {
		t.Fatal(err)
	}
	st, err := pgstore.Open(context.Background(), db, pgstore.Options{Schema: u.Query().Get("search_path")})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

var explainable = regexp.MustCompile(`(?is)^\s*(SELECT|UPDATE|DELETE|INSERT|WITH)\b`)

// seqScans names the tables a JSON plan scans sequentially, the indexes it reads
// whole, and the non-unique indexes whose rows it filters. An index read from
// its head under a LIMIT (a queue's fetch) reads only what it returns.
func seqScans(t *testing.T, plan string, unique map[string]bool) []string {
	var doc []struct{ Plan map[string]any }
	if err := json.Unmarshal([]byte(plan), &doc); err != nil {
		t.Fatal(err)
	}
	var out []string
	var walk func(n map[string]any, parent string)
	walk = func(n map[string]any, parent string) {
		switch n["Node Type"] {
		case "Seq Scan":
			out = append(out, n["Relation Name"].(string))
		case "Index Scan", "Index Only Scan", "Bitmap Index Scan":
			_, filtered := n["Filter"]
			if _, ok := n["Index Cond"]; !ok && (parent != "Limit" || filtered) {
				out = append(out, n["Index Name"].(string)+" (the whole index)")
			}
		}
		if filter, ok := n["Filter"].(string); ok {
			for _, name := range indexesOf(n) {
				if !unique[name] {
					out = append(out, name+" (rows read to be filtered out: "+filter+")")
				}
			}
		}
		kids, _ := n["Plans"].([]any)
		for _, k := range kids {
			if m, ok := k.(map[string]any); ok {
				walk(m, n["Node Type"].(string))
			}
		}
	}
	for _, d := range doc {
		walk(d.Plan, "")
	}
	return out
}

// indexesOf names the index a scan node reads, or, for a bitmap heap scan,
// the indexes of its bitmap (its outer child; its subplans are the filter's).
func indexesOf(n map[string]any) []string {
	if name, ok := n["Index Name"].(string); ok {
		return []string{name}
	}
	var out []string
	if n["Node Type"] == "Bitmap Heap Scan" {
		kids, _ := n["Plans"].([]any)
		for _, k := range kids {
			if m, ok := k.(map[string]any); ok && m["Parent Relationship"] == "Outer" {
				out = append(out, indexesOf(m)...)
			}
		}
	}
	return out
}

func oneLine(q string) string { return strings.Join(strings.Fields(q), " ") }

// lsScript: five tool round trips (ls), then an answer.
const lsScript = `{"name": "ls-5", "turns": [{"steps": [
  {"tool_calls": [{"name": "ls", "arguments": {}}]},
  {"tool_calls": [{"name": "ls", "arguments": {}}]},
  {"tool_calls": [{"name": "ls", "arguments": {}}]},
  {"tool_calls": [{"name": "ls", "arguments": {}}]},
  {"tool_calls": [{"name": "ls", "arguments": {}}]},
  {"chunks": ["done"]}
]}]}`

// What a tool round trip costs on PostgreSQL, counted (a turn of five, its
// start and answer shared among them; the browser reports executing, three
// transitions a call): the ceiling is what the data path costs today and comes
// down as it gets leaner (the goal is 12 statements and 6 exchanges); a change
// that adds statements to the round trip fails here.
func TestRoundTripStatementBudget(t *testing.T) {
	const maxStatements, maxExchanges = 18.0, 8.5
	db := requirePostgres(t)
	s := &testServer{testserver.Start(t, mustScript(t, lsScript), testserver.Options{
		// What runs on a timer (the backstop poll, the node's liveness record,
		// lease renewals) is not per round trip: out of the count.
		Config: func(c *config.Config) {
			c.DBURL, c.PollInterval, c.NodeTTL, c.LeaseTTL = db, time.Hour, time.Hour, time.Hour
		},
		Server: server.Options{}, // no transcript verification: the round trip as it runs
	})}
	b := newBrowser(t, s, "alice", "dev-a")
	var before pgstore.Counts
	var readBack atomic.Int64
	var stop func()
	b.secondTurn(func() {
		before = pgstore.ReadCounts()
		stop = pgstore.WatchStatements(func(sql string, _ []any) {
			if strings.HasPrefix(strings.TrimSpace(sql), "SELECT") && strings.Contains(sql, "FROM updates") {
				readBack.Add(1)
			}
		})
	})
	got := pgstore.ReadCounts().Sub(before)
	stop()
	// A step's transcript catches up from the updates this node committed, in
	// memory: nothing of the Topic is read back.
	if n := readBack.Load(); n > 0 {
		t.Errorf("the turn read Topic updates back %d times", n)
	}
	st, ex := float64(got.Statements)/5, float64(got.Exchanges)/5
	t.Logf("per round trip: %.1f statements, %.1f exchanges, %.1f write and %.1f read transactions",
		st, ex, float64(got.Writes)/5, float64(got.Reads)/5)
	if st > maxStatements || ex > maxExchanges {
		t.Fatalf("a round trip costs %.1f statements and %.1f exchanges; at most %.0f and %.0f", st, ex, maxStatements, maxExchanges)
	}
}
