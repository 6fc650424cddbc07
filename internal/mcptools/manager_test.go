package mcptools

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/rtcagent/rtcagent/internal/testkit/mcptest"
	"github.com/rtcagent/rtcagent/internal/tools"
)

func start(t *testing.T, srv Server) *Manager {
	t.Helper()
	m := Start(&Config{Servers: []Server{srv}}, Options{MinBackoff: 50 * time.Millisecond})
	t.Cleanup(m.Close)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if err := m.Ready(ctx); err != nil {
		t.Fatal(err)
	}
	return m
}

// overBoth runs f as a subtest per transport, with a manager of server name
// run as `node script stdio` and one of the Streamable HTTP endpoint url
// gives (started only for its subtest).
func overBoth(t *testing.T, name, script string, url func(t testing.TB) string, f func(t *testing.T, m *Manager)) {
	t.Run("stdio", func(t *testing.T) {
		f(t, start(t, Server{Name: name, Command: "node", Args: []string{script, "stdio"}}))
	})
	t.Run("http", func(t *testing.T) { f(t, start(t, Server{Name: name, URL: url(t)})) })
}

func call(t *testing.T, m *Manager, name, args string, ask Asker) Result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	res, err := m.Call(ctx, name, json.RawMessage(args), Hooks{Ask: ask})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return res
}

func outputText(t *testing.T, r Result) string {
	t.Helper()
	if !r.OK {
		t.Fatalf("failed: %s", r.Error)
	}
	var s string
	if err := json.Unmarshal(r.Output, &s); err != nil {
		t.Fatalf("output %s: %v", r.Output, err)
	}
	return s
}

// TestStdioServer runs the test server as a child process over stdio: its tools
// are listed with the server's prefix and annotations, calls return their text,
// an elicitation reaches the call's Asker (or is declined without one), and a tool
// added while it runs is listed after tools/list_changed.
func TestStdioServer(t *testing.T) {
	countFile := filepath.Join(t.TempDir(), "calls")
	m := start(t, Server{Name: "test", Command: mcptest.Binary(t), Args: []string{"-count", countFile}})

	listed := map[string]Tool{}
	for _, tl := range m.Tools() {
		listed[tl.Name] = tl
	}
	echo, ok := listed["test__echo"]
	if !ok || !echo.ReadOnly || echo.Remote != "echo" || !strings.Contains(string(echo.InputSchema), `"text"`) {
		t.Fatalf("echo: %+v (listed %v)", echo, listed)
	}
	if sl := listed["test__sleep"]; sl.Rerunnable() {
		t.Fatalf("sleep is rerunnable: %+v", sl)
	}
	if got := outputText(t, call(t, m, "test__echo", `{"text":"hi"}`, nil)); got != "echo: hi" {
		t.Fatalf("echo: %q", got)
	}
	if got := outputText(t, call(t, m, "test__sleep", `{"ms":1,"tag":"a"}`, nil)); got != "slept 1 ms" {
		t.Fatalf("sleep: %q", got)
	}
	if data, _ := os.ReadFile(countFile); string(data) != "sleep a\n" {
		t.Fatalf("count file: %q", data)
	}

	var asked string
	ask := func(ctx context.Context, q tools.Question) (tools.ElicitAnswer, error) {
		asked = q.Server + " " + q.Message + " " + string(q.Schema) + q.URL
		return tools.ElicitAnswer{Action: "accept", Content: map[string]any{"answer": "blue"}}, nil
	}
	if got := outputText(t, call(t, m, "test__ask", `{"question":"Which colour?"}`, ask)); got != `accept {"answer":"blue"}` {
		t.Fatalf("ask: %q", got)
	}
	if !strings.HasPrefix(asked, "test Which colour? ") || !strings.Contains(asked, `"answer"`) {
		t.Fatalf("asked %q", asked)
	}
	var order []string
	profile := func(ctx context.Context, q tools.Question) (tools.ElicitAnswer, error) {
		order = q.Order
		return tools.ElicitAnswer{Action: "decline"}, nil
	}
	if got := outputText(t, call(t, m, "test__ask", `{"question":"Your profile","form":"profile"}`, profile)); !strings.HasPrefix(got, "decline") {
		t.Fatalf("ask for a profile: %q", got)
	}
	if want := tools.PropertyOrder(json.RawMessage(mcptest.ProfileSchema)); !slices.Equal(order, want) || len(order) != 13 {
		t.Fatalf("the profile's order %v, want %v", order, want)
	}
	if got := outputText(t, call(t, m, "test__ask", `{"question":"Sign in","url":"https://example.com/auth?x=1"}`, ask)); !strings.HasPrefix(got, "accept") {
		t.Fatalf("ask for a link: %q", got)
	}
	if asked != "test Sign in https://example.com/auth?x=1" {
		t.Fatalf("asked for a link %q", asked)
	}
	if got := outputText(t, call(t, m, "test__ask", `{"question":"Which?"}`, nil)); !strings.HasPrefix(got, "decline") {
		t.Fatalf("ask without an Asker: %q", got)
	}

	changed := m.Changed()
	outputText(t, call(t, m, "test__grow", `{}`, nil))
	select {
	case <-changed:
	case <-time.After(60 * time.Second):
		t.Fatal("no tool list change")
	}
	deadline := time.Now().Add(60 * time.Second)
	for {
		if _, ok := m.Lookup("test__late"); ok {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("late tool not listed")
		}
		time.Sleep(20 * time.Millisecond)
	}
	if got := outputText(t, call(t, m, "test__late", `{}`, nil)); got != "late" {
		t.Fatalf("late: %q", got)
	}
	if _, err := m.Call(context.Background(), "test__nope", nil, Hooks{}); err == nil {
		t.Fatal("unknown tool called")
	}
}

// TestStreamableHTTPServer connects to the test server over Streamable HTTP with
// the configured headers.
func TestStreamableHTTPServer(t *testing.T) {
	h := mcptest.Handler(mcptest.Options{})
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer sesame" {
			http.Error(w, "no", http.StatusUnauthorized)
			return
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(hs.Close)
	m := start(t, Server{Name: "web", URL: hs.URL, Headers: map[string]string{"Authorization": "Bearer sesame"}})
	if got := outputText(t, call(t, m, "web__echo", `{"text":"over http"}`, nil)); got != "echo: over http" {
		t.Fatalf("echo: %q", got)
	}
	// A form's fields keep the server's order over HTTP too (read from the
	// raw line of the request, which may come in an SSE stream).
	var order []string
	profile := func(ctx context.Context, q tools.Question) (tools.ElicitAnswer, error) {
		order = q.Order
		return tools.ElicitAnswer{Action: "decline"}, nil
	}
	if got := outputText(t, call(t, m, "web__ask", `{"question":"Your profile","form":"profile"}`, profile)); !strings.HasPrefix(got, "decline") {
		t.Fatalf("ask for a profile: %q", got)
	}
	if want := tools.PropertyOrder(json.RawMessage(mcptest.ProfileSchema)); !slices.Equal(order, want) || len(order) != 13 {
		t.Fatalf("the profile's order over HTTP %v, want %v", order, want)
	}
}

func TestResultLimit(t *testing.T) {
	m := start(t, Server{Name: "t", Command: mcptest.Binary(t)})
	m.opts.ResultBytes = 100
	long := strings.Repeat("\"é", 200)
	arg, _ := json.Marshal(map[string]string{"text": long})
	r := call(t, m, "t__echo", string(arg), nil)
	if len(r.Output) > 100 || !strings.Contains(outputText(t, r), "[cut: ") {
		t.Fatalf("%d bytes: %s", len(r.Output), r.Output)
	}
}

// TestProtocolErrorBounded: a server's JSON-RPC error of 2 MB reaches the
// caller cut to the result limit, with a note of what was left out.
func TestProtocolErrorBounded(t *testing.T) {
	m := start(t, Server{Name: "t", Command: mcptest.Binary(t)})
	_, err := m.Call(t.Context(), "t__fail", json.RawMessage(`{"bytes":2000000}`), Hooks{})
	if err == nil {
		t.Fatal("no error")
	}
	if msg := err.Error(); len(msg) > 256<<10 || !strings.Contains(msg, "eeee… [cut: ") {
		t.Fatalf("%d bytes: %q", len(msg), msg[max(0, len(msg)-60):])
	}
}

// TestReconnect: when the server's process ends, the manager starts it again and
// its tools work again; the call that ended the process reports an error.
func TestReconnect(t *testing.T) {
	m := start(t, Server{Name: "t", Command: mcptest.Binary(t)})
	if _, err := m.Call(context.Background(), "t__crash", nil, Hooks{}); err == nil {
		t.Fatal("crash returned a result")
	}
	deadline := time.Now().Add(60 * time.Second)
	for {
		res, err := m.Call(context.Background(), "t__echo", json.RawMessage(`{"text":"again"}`), Hooks{})
		if err == nil {
			if got := outputText(t, res); got != "echo: again" {
				t.Fatalf("echo: %q", got)
			}
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("not connected again: %v", err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// What a listing leaves out is logged once per connection: a server lists its
// tools again on every change and would say the same each time.
func TestLeftOutLoggedOnce(t *testing.T) {
	var buf bytes.Buffer
	log := slog.New(slog.NewTextHandler(&buf, nil))
	c := &conn{srv: Server{Name: "every"}}
	for range 4 {
		c.leftOut(log, "tool left out: it requires MCP tasks", "tool", "simulate-research-query")
	}
	c.leftOut(log, "tool left out: it requires MCP tasks", "tool", "another")
	if n := strings.Count(buf.String(), "tool left out"); n != 2 {
		t.Fatalf("%d lines, want one per tool:\n%s", n, buf.String())
	}
}

// A tool's structured content is kept apart from its text when it fits in
// what the text left of the result limit; past it, the text alone is kept.
func TestStructuredResultKeptApart(t *testing.T) {
	m := start(t, Server{Name: "t", Command: mcptest.Binary(t)})
	r := call(t, m, "t__panel", `{"title":"Sales"}`, nil)
	if got := outputText(t, r); got != "panel shown: Sales" || string(r.Structured) != `{"figures":3,"title":"Sales"}` {
		t.Fatalf("output %q, structured %s", got, r.Structured)
	}
	m.opts.ResultBytes = len(r.Output) + 10
	if r := call(t, m, "t__panel", `{"title":"Sales"}`, nil); outputText(t, r) != "panel shown: Sales" || r.Structured != nil {
		t.Fatalf("past the limit: output %s, structured %s", r.Output, r.Structured)
	}
	// What a server may send besides: a list, a scalar, or structured content
	// with an error, none of which a view gets as its structured result.
	for _, res := range []*mcp.CallToolResult{
		{Content: []mcp.Content{&mcp.TextContent{Text: "two"}}, StructuredContent: []any{1, 2}},
		{Content: []mcp.Content{&mcp.TextContent{Text: "one"}}, StructuredContent: 1},
		{Content: []mcp.Content{&mcp.TextContent{Text: "bad"}}, StructuredContent: map[string]any{"a": 1}, IsError: true},
	} {
		if got := resultOf(res, 1<<10); got.Structured != nil {
			t.Errorf("%+v kept %s apart", res, got.Structured)
		}
	}
}
