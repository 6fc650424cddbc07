package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/rtcagent/rtcagent/internal/auth"
	"github.com/rtcagent/rtcagent/internal/protocol"
	"github.com/rtcagent/rtcagent/internal/testkit/testsvc"
)

// requirePostgres returns the test database URL with a fresh schema of its own
// (dropped at cleanup).
func requirePostgres(t testing.TB) string {
	url := testsvc.PostgresURL(t)
	return url + "&search_path=" + testsvc.Schema(t, url)
}

// cluster is n server processes sharing one PostgreSQL schema and one Redis prefix.
type cluster struct {
	nodes []*procServer
}

// startCluster starts n nodes; extra adds arguments to some nodes (by index).
func startCluster(t *testing.T, n int, script string, extra ...map[int][]string) *cluster {
	t.Helper()
	dbURL := requirePostgres(t)
	redisURL := requireRedis(t)
	prefix := uniquePrefix()
	dir := t.TempDir()
	scriptFile := filepath.Join(dir, "script.json")
	if err := os.WriteFile(scriptFile, []byte(script), 0o600); err != nil {
		t.Fatal(err)
	}
	v, _ := auth.NewVerifier([]byte(testSecret))
	c := &cluster{}
	for i := 0; i < n; i++ {
		p := &procServer{t: t, addr: freeAddr(t), verify: v}
		p.args = []string{"serve", "-addr", p.addr, "-database-url", dbURL, "-redis-url", redisURL, "-redis-prefix", prefix,
			"-token-secret", testSecret, "-model-provider", "scripted", "-script", scriptFile,
			"-poll-interval", "100ms", "-lease-ttl", "2s", "-log-level", "warn", "-message-rate", "-1"}
		for _, e := range extra {
			p.args = append(p.args, e[i]...) // a later flag overrides an earlier one
		}
		p.start()
		t.Cleanup(p.kill)
		c.nodes = append(c.nodes, p)
	}
	return c
}

// TestClusterRoundTrips: three nodes; each client executes on one node while its
// messages are sent through another, so sessions run on nodes the client is not
// connected to, and the round trips complete with contiguous offsets.
func TestClusterRoundTrips(t *testing.T) {
	c := startCluster(t, 3, writeReadScript)
	for i := 0; i < 3; i++ {
		user := fmt.Sprintf("user-%d", i)
		exec := newBrowser(t, c.nodes[i], user, "dev")
		sender := newBrowser(t, c.nodes[(i+1)%3], user, "dev", noExecute)
		var res protocol.MessageSendResult
		sender.mustCall(protocol.MethodMessageSend, protocol.MessageSendRequest{ClientID: "m", Content: protocol.MessageContent{Text: "write and read"}}, &res)
		if tr := exec.waitTurn(res.TurnID, 20*time.Second); tr.Status != protocol.TurnCompleted {
			t.Fatalf("%s: turn %s", user, tr.Status)
		}
		msgs := exec.assistantMessages(res.SessionID)
		if last := msgs[len(msgs)-1]; last.Text != "The file says: hello rtc. Done." {
			t.Fatalf("%s: final %q", user, last.Text)
		}
		var ul protocol.UpdateListResult
		exec.mustCall(protocol.MethodUpdateList, protocol.UpdateListRequest{Limit: 1}, &ul)
		for _, b := range []*browser{exec, sender} {
			b.waitOffset(ul.Top)
			b.checkOffsets()
		}
	}
}

// TestClusterNodeKilled: messages go through node 0, which runs their sessions;
// node 0 is killed with SIGKILL while turns stream and RTCs wait. The survivors
// take over once node 0's liveness record expired, long before the 30 s leases
// would: every turn completes, every client's offsets stay contiguous, and no RTC
// is delivered as new twice. It prints the failover times.
func TestClusterNodeKilled(t *testing.T) {
	const users = 6
	c := startCluster(t, 3, `{"name": "kill", "turns": [{"steps": [
	  {"chunks": ["a ", "b ", "c ", "d ", "e ", "f ", "g ", "h ", "i ", "j "], "delay_ms": 150,
	   "tool_calls": [{"name": "write", "arguments": {"path": "/k.txt", "content": "k"}}]},
	  {"tool_calls": [{"name": "read", "arguments": {"path": "/k.txt"}}]},
	  {"text": "finished: {{last_result}}"}]}]}`,
		// Node 0 is woken by the commits of the messages sent through it; the others
		// poll at the default 1 s, so node 0 runs the turns (and the kill cuts them)
		// while the survivors still take over within a node TTL plus a poll. The
		// lease is the default 30 s: the failover must not wait for it.
		map[int][]string{0: {"-lease-ttl", "30s"}, 1: {"-lease-ttl", "30s", "-poll-interval", "1s"}, 2: {"-lease-ttl", "30s", "-poll-interval", "1s"}})
	var browsers []*browser
	var turns []string
	for i := 0; i < users; i++ {
		b := newBrowser(t, c.nodes[1+i%2], fmt.Sprintf("u%d", i), "dev")
		browsers = append(browsers, b)
	}
	for i, b := range browsers {
		res := sendVia(t, c.nodes[0], b.user, "dev", fmt.Sprintf("go %d", i))
		turns = append(turns, res.TurnID)
	}
	waitStreaming(t, browsers, 10*time.Second)
	killed := time.Now()
	c.nodes[0].kill()
	ds := failover(t, killed, browsers, turns, 20*time.Second)
	t.Logf("failover after SIGKILL (lease TTL 30s, node TTL 3s, poll 1s): %s", describe(ds))
	for i, b := range browsers {
		if tr := b.waitTurn(turns[i], 10*time.Second); tr.Status != protocol.TurnCompleted {
			t.Fatalf("%s: turn %s %+v", b.user, tr.Status, tr.Error)
		}
	}
	interrupted := 0
	for _, b := range browsers {
		var ul protocol.UpdateListResult
		b.mustCall(protocol.MethodUpdateList, protocol.UpdateListRequest{Limit: 1}, &ul)
		b.waitOffset(ul.Top)
		b.checkOffsets()
		b.mu.Lock()
		pending := map[string]int{}
		for _, data := range changesOf(b.updates, protocol.UpdRTCUpdated) {
			var r protocol.RTC
			if json.Unmarshal(data, &r) == nil && r.Status == protocol.RTCPending {
				pending[r.ID]++
			}
		}
		if len(pending) != 2 {
			t.Errorf("%s: %d rtcs delivered, want 2", b.user, len(pending))
		}
		for id, n := range pending {
			if n != 1 || b.executed[id] != 1 {
				t.Errorf("%s: rtc %s delivered %d times, executed %d times", b.user, id, n, b.executed[id])
			}
		}
		for _, m := range b.messages {
			if m.Status == protocol.MessageInterrupted {
				interrupted++
			}
		}
		b.mu.Unlock()
	}
	if interrupted == 0 {
		t.Fatal("no stream was cut: node 0 ran none of the turns, the takeover was not exercised")
	}
	t.Logf("%d streams cut by the kill were resumed by the survivors", interrupted)
}

// sendVia sends a message over HTTP to one node.
func sendVia(t *testing.T, p *procServer, user, device, text string) protocol.MessageSendResult {
	t.Helper()
	tok, _, _ := p.verify.Issue(user, time.Hour)
	req, _ := http.NewRequest(http.MethodPost, "http://"+p.addr+"/api/v1/rpc/"+protocol.MethodMessageSend,
		bytes.NewReader(jsonOf(protocol.MessageSendRequest{ClientID: "m-" + text, Content: protocol.MessageContent{Text: text}})))
	req.Header.Set("Authorization", "Bearer "+tok)
	req.Header.Set("X-Device-Id", device)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var res protocol.MessageSendResult
	if resp.StatusCode != 200 || json.NewDecoder(resp.Body).Decode(&res) != nil {
		t.Fatalf("send via %s: %d", p.addr, resp.StatusCode)
	}
	return res
}

// ownRedis runs a private redis-server on a free port, so a test can restart it
// without disturbing other tests.
type ownRedis struct {
	t    *testing.T
	port string
	cmd  *exec.Cmd
}

func startOwnRedis(t *testing.T) *ownRedis {
	t.Helper()
	requireRedis(t)
	path, err := exec.LookPath("redis-server")
	if err != nil {
		if os.Getenv("RTCAGENT_REQUIRE_SERVICES") == "1" {
			t.Fatal("redis-server required")
		}
		t.Skip("no redis-server binary")
	}
	_, port, _ := net.SplitHostPort(freeAddr(t))
	r := &ownRedis{t: t, port: port}
	r.start(path)
	t.Cleanup(r.stop)
	return r
}

func (r *ownRedis) url() string { return "redis://127.0.0.1:" + r.port + "/0" }

func (r *ownRedis) start(path string) {
	r.cmd = exec.Command(path, "--port", r.port, "--bind", "127.0.0.1", "--save", "", "--appendonly", "no")
	if err := r.cmd.Start(); err != nil {
		r.t.Fatal(err)
	}
	waitFor(r.t, "redis up", 10*time.Second, func() bool {
		conn, err := net.Dial("tcp", "127.0.0.1:"+r.port)
		if err == nil {
			conn.Close()
		}
		return err == nil
	})
}

func (r *ownRedis) stop() {
	if r.cmd != nil && r.cmd.Process != nil {
		_ = r.cmd.Process.Kill()
		_, _ = r.cmd.Process.Wait()
		r.cmd = nil
	}
}

// TestClusterRedisRestart: Redis dies (losing everything: it keeps nothing on
// disk) and comes back while turns run on two nodes. Nodes reconnect, clients
// recover from the database history: every turn completes, offsets stay contiguous.
func TestClusterRedisRestart(t *testing.T) {
	r := startOwnRedis(t)
	dbURL := requirePostgres(t)
	dir := t.TempDir()
	scriptFile := filepath.Join(dir, "script.json")
	script := `{"name": "redis", "turns": [{"steps": [
	  {"chunks": ["a ", "b ", "c ", "d ", "e ", "f "], "delay_ms": 100, "tool_calls": [{"name": "write", "arguments": {"path": "/r.txt", "content": "r"}}]},
	  {"tool_calls": [{"name": "read", "arguments": {"path": "/r.txt"}}]},
	  {"text": "finished: {{last_result}}"}]}]}`
	if err := os.WriteFile(scriptFile, []byte(script), 0o600); err != nil {
		t.Fatal(err)
	}
	v, _ := auth.NewVerifier([]byte(testSecret))
	var nodes []*procServer
	for i := 0; i < 2; i++ {
		p := &procServer{t: t, addr: freeAddr(t), verify: v}
		p.args = []string{"serve", "-addr", p.addr, "-database-url", dbURL, "-redis-url", r.url(), "-token-secret", testSecret,
			"-model-provider", "scripted", "-script", scriptFile, "-poll-interval", "100ms", "-lease-ttl", "2s", "-log-level", "error", "-message-rate", "-1"}
		p.start()
		t.Cleanup(p.kill)
		nodes = append(nodes, p)
	}
	var browsers []*browser
	var turns []string
	for i := 0; i < 4; i++ {
		b := newBrowser(t, nodes[i%2], fmt.Sprintf("r%d", i), "dev")
		browsers = append(browsers, b)
		turns = append(turns, sendVia(t, nodes[(i+1)%2], b.user, "dev", fmt.Sprintf("go %d", i)).TurnID)
	}
	time.Sleep(300 * time.Millisecond)
	path, _ := exec.LookPath("redis-server")
	r.stop()
	time.Sleep(500 * time.Millisecond)
	r.start(path)
	for i, b := range browsers {
		if tr := b.waitTurn(turns[i], 40*time.Second); tr.Status != protocol.TurnCompleted {
			t.Fatalf("%s: turn %s %+v", b.user, tr.Status, tr.Error)
		}
		var ul protocol.UpdateListResult
		b.mustCall(protocol.MethodUpdateList, protocol.UpdateListRequest{Limit: 1}, &ul)
		b.waitOffset(ul.Top)
		b.checkOffsets()
	}
}
