package mcptest

import (
	"bufio"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
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
	return "http://127.0.0.1:" + runNode(t, nil, false, "listening ", TaskServer(t), "http")
}

// EverythingHTTP runs server-everything over Streamable HTTP until the test
// ends and returns its MCP endpoint.
func EverythingHTTP(t testing.TB) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := strconv.Itoa(l.Addr().(*net.TCPAddr).Port)
	l.Close()
	runNode(t, []string{"PORT=" + port}, true, "listening on port ", Everything(t), "streamableHttp")
	return "http://127.0.0.1:" + port + "/mcp"
}

// runNode runs node with args until the test ends, and waits for the line
// of its output (stderr when fromStderr) that holds ready; it returns what
// follows ready on that line.
func runNode(t testing.TB, env []string, fromStderr bool, ready string, args ...string) string {
	t.Helper()
	cmd := exec.Command("node", args...)
	cmd.Env = append(os.Environ(), env...)
	var out io.ReadCloser
	var err error
	if fromStderr {
		out, err = cmd.StderrPipe()
	} else {
		cmd.Stderr = os.Stderr
		out, err = cmd.StdoutPipe()
	}
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	sc := bufio.NewScanner(out)
	for sc.Scan() {
		if _, rest, ok := strings.Cut(sc.Text(), ready); ok {
			go func() {
				for sc.Scan() { // the rest of its output, so it never blocks
				}
			}()
			return strings.TrimSpace(rest)
		}
	}
	t.Fatalf("%s did not start", filepath.Base(args[0]))
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
