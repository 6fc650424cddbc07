package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"time"

	"github.com/rtcagent/rtcagent/internal/auth"
	"github.com/rtcagent/rtcagent/internal/store"
	"github.com/rtcagent/rtcagent/internal/store/pgstore"
	"github.com/rtcagent/rtcagent/internal/testkit/nodeproc"
	"github.com/rtcagent/rtcagent/internal/testkit/simclient"
)

// ClusterPoint is one point of a `-nodes` run: k server processes on one
// PostgreSQL schema and Redis, each with SessionsPerNode simulated browsers.
type ClusterPoint struct {
	Nodes, SessionsPerNode int
	PerNode                []int   // round trips each node's model timed in the window
	RoundTrips             int     // their sum
	PerSec                 float64 // RoundTrips / window
	RTT                    Pcts    // over all nodes
	Turns, Failed          int
	ClientErrors           int
	PG                     pgstore.Counts    // what the nodes sent to PostgreSQL in the window
	Tables                 store.TableCounts // what those statements did to each table
	// CPU in the window, in cores: the server processes together, the
	// clients' process, the PostgreSQL backends of the run's connections
	// (negative when not measured).
	ServersCPU, ClientsCPU, PGCPU float64
	PGWAL                         *PGWAL // the PostgreSQL server's WAL in the window; nil when not measured
}

// ClusterResult is a `-nodes` run.
type ClusterResult struct {
	Calls    int
	Tool     string
	Duration time.Duration
	Points   []ClusterPoint
}

// runCluster measures, for each node count of o.Nodes and each point of
// o.Sessions (sessions per node), the load of Sessions × nodes browsers spread
// over that many server child processes (`rtcagent bench node`) on a fresh
// schema of one PostgreSQL database and one Redis.
func runCluster(ctx context.Context, o Options, logf func(string, ...any)) (*ClusterResult, error) {
	if o.DBURL == "" || o.RedisURL == "" {
		return nil, errors.New("bench: -nodes needs PostgreSQL and Redis (-database-url and -redis-url)")
	}
	if len(o.ServeCmd) == 0 {
		return nil, errors.New("bench: -nodes needs the rtcagent executable to start the nodes")
	}
	for _, k := range o.Nodes {
		if k <= 0 || k > maxNodes {
			return nil, fmt.Errorf("bench: -nodes %d: between 1 and %d", k, maxNodes)
		}
	}
	ver, err := auth.NewVerifier([]byte(secret))
	if err != nil {
		return nil, err
	}
	res := &ClusterResult{Calls: o.Calls, Tool: o.Tool, Duration: o.Duration}
	for _, k := range o.Nodes {
		pts, err := clusterRun(ctx, o, ver, k, logf)
		if err != nil {
			return nil, fmt.Errorf("%d nodes: %w", k, err)
		}
		res.Points = append(res.Points, pts...)
	}
	return res, nil
}

// maxNodes bounds the child processes of a run.
const maxNodes = 16

// clusterRun starts k nodes on a fresh schema and measures every sessions point
// on them.
func clusterRun(ctx context.Context, o Options, ver *auth.Verifier, k int, logf func(string, ...any)) ([]ClusterPoint, error) {
	name := fmt.Sprintf("rtcbench%dn%d", time.Now().UnixNano(), k)
	dbURL, drop, err := freshSchema(o.DBURL, name)
	if err != nil {
		return nil, fmt.Errorf("database url: %w", err)
	}
	defer drop()
	if dbURL, err = withAppName(dbURL, name); err != nil {
		return nil, fmt.Errorf("database url: %w", err)
	}
	logw := io.Writer(os.Stderr)
	if o.Log != nil {
		logw = o.Log
	}
	var nodes []*nodeproc.Proc
	defer func() {
		for _, n := range nodes {
			n.Stop(15 * time.Second)
		}
	}()
	for i := range k {
		addr, err := nodeproc.FreeAddr()
		if err != nil {
			return nil, err
		}
		args := []string{"bench", "node", "-addr", addr, "-database-url", dbURL, "-redis-url", o.RedisURL,
			"-redis-prefix", name, "-calls", strconv.Itoa(o.Calls), "-tool", o.Tool}
		if o.NodePoll > 0 {
			args = append(args, "-poll-interval", o.NodePoll.String())
		}
		if o.NodeProfile != "" && i == 0 {
			args = append(args, "-cpuprofile", fmt.Sprintf("%s.%dnodes", o.NodeProfile, k))
		}
		n := &nodeproc.Proc{Cmd: o.ServeCmd, Args: args, Addr: addr, Log: logw}
		nodes = append(nodes, n)
		// One after another: the first creates the schema.
		if _, err := n.Start(ctx); err != nil {
			return nil, err
		}
	}
	backends := &pgBackends{dbURL: dbURL, app: name}
	var pts []ClusterPoint
	for j, n := range o.Sessions {
		logf("%d nodes, %d sessions each, for %s", k, n, o.Duration)
		p, err := clusterPoint(ctx, o, ver, nodes, backends, fmt.Sprintf("%s-p%d", name, j), n)
		if err != nil {
			return nil, fmt.Errorf("%d sessions per node: %w", n, err)
		}
		pts = append(pts, p)
	}
	return pts, nil
}

// clusterPoint runs n browsers per node (browser i on node i mod k) for the
// warm-up and the window, and collects each node's window.
func clusterPoint(ctx context.Context, o Options, ver *auth.Verifier, nodes []*nodeproc.Proc, backends *pgBackends, prefix string, n int) (ClusterPoint, error) {
	k := len(nodes)
	urls := make([]string, k)
	for i, nd := range nodes {
		urls[i] = nd.WSURL()
	}
	tokens := make([]string, n*k)
	for i := range tokens {
		tok, _, err := ver.Issue(fmt.Sprintf("%s-%d", prefix, i), 24*time.Hour)
		if err != nil {
			return ClusterPoint{}, err
		}
		tokens[i] = tok
	}
	var werr error
	var cpu0 time.Duration
	window := func() {
		backends.begin(ctx)
		cpu0 = ownCPU()
		for _, nd := range nodes {
			if _, err := nodeCall(ctx, nd, "window"); err != nil {
				werr = errors.Join(werr, err)
			}
		}
	}
	var l load
	if o.ClientsProcess {
		var err error
		if l, err = clientsChildJob(ctx, o, clientsJob{URLs: urls, Tokens: tokens, Prefix: prefix, Warmup: o.Warmup, Window: o.Duration}, window); err != nil {
			return ClusterPoint{}, err
		}
	} else {
		// The cluster's table has no latency row: its clients time nothing.
		clients, err := dialTokens(ctx, urls, tokens, func(int) simclient.Config { return simclient.Config{Tool: ok} })
		if err != nil {
			return ClusterPoint{}, err
		}
		defer closeAll(clients)
		l = driveLoad(ctx, clients, prefix, &clientTimes{}, o.Warmup, o.Duration, window)
		l.CPU = ownCPU() - cpu0
	}
	p := ClusterPoint{Nodes: k, SessionsPerNode: n, Turns: l.Turns, Failed: l.Failed, ClientErrors: l.ClientErrors, PGCPU: -1}
	var gaps []time.Duration
	var elapsed time.Duration
	for _, nd := range nodes {
		b, err := nodeCall(ctx, nd, "result")
		if err != nil {
			return ClusterPoint{}, err
		}
		var w nodeWindow
		if err := json.Unmarshal(b, &w); err != nil {
			return ClusterPoint{}, fmt.Errorf("node %s: %w", nd.Addr, err)
		}
		p.PerNode = append(p.PerNode, len(w.Gaps))
		gaps = append(gaps, w.Gaps...)
		p.ServersCPU += w.CPU.Seconds() / w.Elapsed.Seconds()
		p.PG = p.PG.Add(w.PG)
		if p.Tables == nil {
			p.Tables = store.TableCounts{}
		}
		for k, v := range w.Tables {
			p.Tables[k] += v
		}
		elapsed = max(elapsed, w.Elapsed)
	}
	if werr != nil {
		return ClusterPoint{}, werr
	}
	if d, _, wal, ok := backends.since(ctx); ok {
		p.PGCPU, p.PGWAL = d.Seconds()/elapsed.Seconds(), wal
	}
	p.RoundTrips = len(gaps)
	p.PerSec = float64(len(gaps)) / elapsed.Seconds()
	p.RTT = pcts(gaps)
	p.ClientsCPU = l.CPU.Seconds() / elapsed.Seconds()
	return p, nil
}

// nodeCall posts to a node child's /bench/<what> and returns the answer.
func nodeCall(ctx context.Context, nd *nodeproc.Proc, what string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	u := url.URL{Scheme: "http", Host: nd.Addr, Path: "/bench/" + what}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, u.String(), bytes.NewReader(nil))
	if err != nil {
		return nil, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, fmt.Errorf("node %s: %w", nd.Addr, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 256<<20))
	if err == nil && resp.StatusCode != http.StatusOK {
		err = fmt.Errorf("node %s: /bench/%s: %s", nd.Addr, what, resp.Status)
	}
	return b, err
}
