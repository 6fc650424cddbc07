package mcptools

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/rtcagent/rtcagent/internal/testkit/mcptest"
)

// TestAppServed: a tool's view (MCP Apps) is read when its server lists its
// tools and served at AppPath with its CSP; the offered tool names the path; a
// tool only its view may call is not offered to the model, but views may call
// it, and the model's tools too.
func TestAppServed(t *testing.T) {
	hs := httptest.NewServer(mcptest.Handler(mcptest.Options{}))
	t.Cleanup(hs.Close)
	m := start(t, Server{Name: "web", URL: hs.URL})
	var path string
	for _, tool := range m.Offered() {
		if tool.Spec.Name == "web__panel" {
			path = tool.App
		}
		if tool.Spec.Name == "web__panel_refresh" {
			t.Error("a tool for its view alone is offered to the model")
		}
	}
	for _, name := range []string{"web__panel_refresh", "web__panel", "web__echo"} {
		if vt, ok := m.ViewTool(name); !ok || vt.Spec.Name != name || !vt.OnServer {
			t.Errorf("a view may not call %s: %+v", name, vt)
		}
	}
	if _, ok := m.ViewTool("web__nope"); ok {
		t.Error("a view may call a tool its server does not have")
	}
	if path != "/mcp-apps/web__panel" {
		t.Fatalf("the panel tool's view path is %q", path)
	}
	srv := httptest.NewServer(m.AppHandler())
	t.Cleanup(srv.Close)
	res, err := http.Get(srv.URL + path)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	csp := res.Header.Get("Content-Security-Policy")
	for _, want := range []string{"sandbox allow-scripts", "default-src 'none'", "connect-src 'none'", "frame-src 'none'", "form-action 'none'", "base-uri 'none'"} {
		if !strings.Contains(csp, want) {
			t.Errorf("CSP %q lacks %q", csp, want)
		}
	}
	if res.StatusCode != 200 || res.Header.Get("Content-Type") != "text/html; charset=utf-8" || res.Header.Get("X-Content-Type-Options") != "nosniff" {
		t.Errorf("status %d, headers %v", res.StatusCode, res.Header)
	}
	req, _ := http.NewRequest(http.MethodGet, srv.URL+path, nil)
	req.Header.Set("If-None-Match", res.Header.Get("ETag"))
	if r2, err := http.DefaultClient.Do(req); err != nil || r2.StatusCode != http.StatusNotModified {
		t.Errorf("revalidation: %v %v", r2, err)
	}
	for p, want := range map[string]int{"/mcp-apps/web__echo": 404, "/mcp-apps/nope": 404, "/mcp-apps/": 404} {
		if r, err := http.Get(srv.URL + p); err != nil || r.StatusCode != want {
			t.Errorf("GET %s: %v %v, want %d", p, r.StatusCode, err, want)
		}
	}
	if r, err := http.Post(srv.URL+path, "text/plain", nil); err != nil || r.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("POST: %v %v", r.StatusCode, err)
	}
}

// TestAppCSP: the origins a view names go into its CSP; anything that is not
// an origin fails the view instead of loosening the policy.
func TestAppCSP(t *testing.T) {
	meta := func(connect, load []any) mcp.Meta {
		return mcp.Meta{"ui": map[string]any{"csp": map[string]any{"connectDomains": connect, "resourceDomains": load}}}
	}
	csp, err := appCSP(meta([]any{"https://api.example.com", "wss://live.example.com:8443"}, []any{"https://*.cdn.example.com"}))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"connect-src https://api.example.com wss://live.example.com:8443", "script-src 'unsafe-inline' https://*.cdn.example.com", "img-src data: https://*.cdn.example.com"} {
		if !strings.Contains(csp, want) {
			t.Errorf("CSP %q lacks %q", csp, want)
		}
	}
	for _, bad := range []any{"https://a.example.com/path", "https://a.example.com; script-src *", "*", "http://example.com", "http://localhost:3000", "ws://127.0.0.1:9000", "https://*.com", "https://intranet", "javascript:alert(1)", "'unsafe-eval'", "https://A.example.com", 42} {
		if _, err := appCSP(meta([]any{bad}, nil)); err == nil {
			t.Errorf("connectDomains %v accepted", bad)
		}
		if _, err := appCSP(meta(nil, []any{bad})); err == nil {
			t.Errorf("resourceDomains %v accepted", bad)
		}
	}
	if csp, err := appCSP(nil); err != nil || !strings.Contains(csp, "connect-src 'none'") {
		t.Errorf("no CSP asked: %q %v", csp, err)
	}
}

// TestAppsLeftOut: what a careless or hostile server declares as a view is
// left out, and its tool is still offered without one: a view past the size
// limit, one of another media type, one whose CSP names more than origins, one
// that cannot be read, and a resource URI that is not ui://.
func TestAppsLeftOut(t *testing.T) {
	s := mcp.NewServer(&mcp.Implementation{Name: "careless", Version: "1"}, nil)
	view := func(uri, mime, html string, meta mcp.Meta) {
		s.AddResource(&mcp.Resource{URI: uri, Name: uri, MIMEType: mime},
			func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
				return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: uri, MIMEType: mime, Text: html, Meta: meta}}}, nil
			})
	}
	view("ui://v/ok", AppMIME, "<p>ok</p>", nil)
	view("ui://v/big", AppMIME, strings.Repeat("x", MaxAppBytes+1), nil)
	view("ui://v/plain", "text/plain", "<p>not a view</p>", nil)
	view("ui://v/csp", AppMIME, "<p>x</p>", mcp.Meta{"ui": map[string]any{"csp": map[string]any{"connectDomains": []any{"https://a.example.com; script-src *"}}}})
	view("ui://v/empty", AppMIME, "", nil)
	tool := func(name, uri string) {
		mcp.AddTool(s, &mcp.Tool{Name: name, Description: name, Meta: mcp.Meta{"ui": map[string]any{"resourceUri": uri}}},
			func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: name}}}, nil, nil
			})
	}
	for name, uri := range map[string]string{"ok": "ui://v/ok", "big": "ui://v/big", "plain": "ui://v/plain", "csp": "ui://v/csp",
		"empty": "ui://v/empty", "missing": "ui://v/missing", "web": "https://evil.example.com/view"} {
		tool(name, uri)
	}
	hs := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil))
	t.Cleanup(hs.Close)
	m := start(t, Server{Name: "c", URL: hs.URL})
	for _, name := range []string{"ok", "big", "plain", "csp", "empty", "missing", "web"} {
		tl, offered := m.Lookup("c__" + name)
		_, has := m.App("c__" + name)
		if !offered {
			t.Errorf("%s: the tool is not offered", name)
		}
		if want := name == "ok"; has != want || (tl.App != "") != want {
			t.Errorf("%s: view %v, path %q; want a view: %v", name, has, tl.App, want)
		}
	}
}

// TestVisibility: `_meta.ui.visibility` says who may call a tool: the model
// is offered only the tools that name it (or name no one), a view may call
// only the tools that name "app" (or name no one), and a tool for no one is
// left out.
func TestVisibility(t *testing.T) {
	s := mcp.NewServer(&mcp.Implementation{Name: "vis", Version: "1"}, nil)
	tool := func(name string, vis []any) {
		meta := mcp.Meta{}
		if vis != nil {
			meta["ui"] = map[string]any{"visibility": vis}
		}
		mcp.AddTool(s, &mcp.Tool{Name: name, Description: name, Meta: meta},
			func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: name}}}, nil, nil
			})
	}
	tool("both", nil)
	tool("listed", []any{"model", "app"})
	tool("model", []any{"model"})
	tool("app", []any{"app"})
	tool("none", []any{})
	hs := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil))
	t.Cleanup(hs.Close)
	m := start(t, Server{Name: "v", URL: hs.URL})
	offered := map[string]bool{}
	for _, tl := range m.Offered() {
		offered[tl.Spec.Name] = true
	}
	for name, want := range map[string][2]bool{"both": {true, true}, "listed": {true, true}, "model": {true, false}, "app": {false, true}, "none": {false, false}} {
		_, forView := m.ViewTool("v__" + name)
		if offered["v__"+name] != want[0] || forView != want[1] {
			t.Errorf("%s: offered to the model %v, to views %v; want %v", name, offered["v__"+name], forView, want)
		}
	}
}
