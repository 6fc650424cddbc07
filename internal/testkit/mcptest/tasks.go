package mcptest

import (
	"bufio"
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// TaskServer is the path of web/test/testdata/task-server.mjs, an MCP server
// of the official TypeScript SDK whose tools run as tasks (the Go SDK serves
// no tasks). It needs node and the web packages, which `make test` installs
// before the Go tests; without them the test is skipped, or fails where the
// services are required (RTCAGENT_REQUIRE_SERVICES).
func TaskServer(t testing.TB) string {
	t.Helper()
	_, file, _, _ := runtime.Caller(0)
	web := filepath.Join(filepath.Dir(file), "../../../web")
	missing := func(err error) {
		if os.Getenv("RTCAGENT_REQUIRE_SERVICES") != "" {
			t.Fatalf("the task server cannot run: %v", err)
		}
		t.Skipf("the task server cannot run: %v", err)
	}
	if _, err := os.Stat(filepath.Join(web, "node_modules/@modelcontextprotocol/sdk")); err != nil {
		missing(err)
	}
	if _, err := exec.LookPath("node"); err != nil {
		missing(err)
	}
	return filepath.Join(web, "test/testdata/task-server.mjs")
}

// TaskServerHTTP runs the task server over Streamable HTTP until the test
// ends and returns its base URL (its MCP endpoint is /mcp).
func TaskServerHTTP(t testing.TB) string {
	t.Helper()
	cmd := exec.Command("node", TaskServer(t), "http")
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	sc := bufio.NewScanner(out)
	for sc.Scan() {
		if port, ok := strings.CutPrefix(sc.Text(), "listening "); ok {
			go func() {
				for sc.Scan() { // the rest of its output, so it never blocks
				}
			}()
			return "http://127.0.0.1:" + port
		}
	}
	t.Fatal("the task server did not start")
	return ""
}

// ServerTasks is every task the task server at url made, with its status.
func ServerTasks(t testing.TB, url string) map[string]string {
	t.Helper()
	resp, err := http.Get(url + "/tasks")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out map[string]string
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		t.Fatal(err)
	}
	return out
}

// Everything is the path of @modelcontextprotocol/server-everything's entry
// (pinned in web/package.json), run with node: `node <path> stdio` or
// `streamableHttp` (PORT in the environment).
func Everything(t testing.TB) string {
	t.Helper()
	web := filepath.Dir(filepath.Dir(filepath.Dir(TaskServer(t)))) // web/test/testdata/…
	return filepath.Join(web, "node_modules/@modelcontextprotocol/server-everything/dist/index.js")
}
