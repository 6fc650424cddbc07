package web

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// The example shop is served at /examples/shop/ with the headers its build lists;
// the directory without its slash redirects; unlisted paths stay 404.
func TestHandlerServesExamples(t *testing.T) {
	if !Built() {
		t.Skip("web/dist is not built (npm run build)")
	}
	h := Handler()
	get := func(path string) *http.Response {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
		return rec.Result()
	}
	r := get("/examples/shop/")
	body, _ := io.ReadAll(r.Body)
	if r.StatusCode != 200 || !strings.HasPrefix(r.Header.Get("Content-Type"), "text/html") || !strings.Contains(string(body), `"@rtc-agent/web": "/sdk/rtc-agent.js"`) {
		t.Fatalf("/examples/shop/: %d %v %.200s", r.StatusCode, r.Header, body)
	}
	if r := get("/examples/shop/app.js"); r.StatusCode != 200 || !strings.HasPrefix(r.Header.Get("Content-Type"), "text/javascript") || r.Header.Get("X-Content-Type-Options") != "nosniff" {
		t.Fatalf("app.js: %d %v", r.StatusCode, r.Header)
	}
	if r := get("/examples/shop"); r.StatusCode != http.StatusMovedPermanently || r.Header.Get("Location") != "/examples/shop/" {
		t.Fatalf("/examples/shop: %d %v", r.StatusCode, r.Header)
	}
	for _, path := range []string{"/examples/", "/examples/headers.json", "/examples/shop/headers.json", "/examples/shop/../../headers.json", "/examples/shop/missing.js", "/examples/shop/src/main.tsx", "/examples/examples/headers.json", "/sdk/examples/shop/app.js"} {
		if r := get(path); r.StatusCode != 404 {
			t.Errorf("%s: %d, want 404", path, r.StatusCode)
		}
	}
}
