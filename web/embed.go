// Package web embeds the built browser SDK and demo page (web/dist, produced by
// `npm run build` in web/) and serves them: the demo at /, the SDK under /sdk/.
package web

import (
	"embed"
	"io/fs"
	"net/http"
)

//go:embed all:dist
var dist embed.FS

// Handler serves the embedded files. Without a build it explains how to make one.
func Handler() http.Handler {
	sub, _ := fs.Sub(dist, "dist")
	if _, err := fs.Stat(sub, "index.html"); err != nil {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path != "/" {
				http.NotFound(w, r)
				return
			}
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			_, _ = w.Write([]byte("<!doctype html><title>RTC Agent</title><p>RTC Agent server is running. The web bundle is not built: run <code>make build</code>.</p>"))
		})
	}
	return http.FileServer(http.FS(sub))
}
