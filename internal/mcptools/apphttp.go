package mcptools

import (
	"net/http"
	"strings"
)

// AppHandler serves the tools' views at AppPath: each with the CSP it was read
// with (see appCSP), never cached without asking again (a server may change a
// view when it lists its tools again), and 404 for a tool without one. Views
// are served without a token, like the SDK's files: a frame cannot send one,
// and a view holds no data of its own (a call's arguments and result reach it
// over postMessage from the page that shows the call).
func (m *Manager) AppHandler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			w.Header().Set("Allow", "GET, HEAD")
			http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
			return
		}
		a, ok := m.App(strings.TrimPrefix(r.URL.Path, AppsPrefix))
		if !ok {
			http.NotFound(w, r)
			return
		}
		h := w.Header()
		h.Set("Content-Type", "text/html; charset=utf-8")
		h.Set("Content-Security-Policy", a.CSP)
		h.Set("Referrer-Policy", "no-referrer")
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Cache-Control", "no-cache")
		h.Set("ETag", a.ETag)
		if r.Header.Get("If-None-Match") == a.ETag {
			w.WriteHeader(http.StatusNotModified)
			return
		}
		if r.Method == http.MethodGet {
			_, _ = w.Write(a.HTML)
		}
	})
}
