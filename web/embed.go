// Package web embeds the built browser SDK (web/dist, produced by `npm run build`
// in web/) and serves it: the SDK under /sdk/ with the exact headers the build lists
// for each file in dist/headers.json (the sandbox page's CSP carries a hash of this
// build), the demo page at /, and the example apps at /examples/<name>/ (their
// files are listed in headers.json as examples/<name>/<file>).
package web

import (
	"embed"
	"encoding/json"
	"io/fs"
	"net/http"
	"strings"
)

//go:embed all:dist
var dist embed.FS

//go:embed demo/index.html
var demoPage []byte

// Handler serves /sdk/<file> for the files listed in headers.json, the demo page
// at /, and /examples/<path> for the listed examples/ files (a directory's
// index.html at its trailing slash). Anything else is 404: build metadata is never
// served.
func Handler() http.Handler {
	sub, _ := fs.Sub(dist, "dist")
	headers := map[string]map[string]string{}
	if raw, err := fs.ReadFile(sub, "headers.json"); err == nil {
		_ = json.Unmarshal(raw, &headers)
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/" || r.URL.Path == "/index.html" {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			w.Header().Set("Cache-Control", "no-cache")
			_, _ = w.Write(demoPage)
			return
		}
		name, ok := strings.CutPrefix(r.URL.Path, "/sdk/")
		if strings.HasPrefix(r.URL.Path, "/examples/") {
			name, ok = r.URL.Path[1:], true
			if strings.HasSuffix(name, "/") {
				name += "index.html"
			} else if _, dir := headers[name+"/index.html"]; dir {
				http.Redirect(w, r, r.URL.Path+"/", http.StatusMovedPermanently)
				return
			}
		}
		h, listed := headers[name]
		if !ok || !listed {
			http.NotFound(w, r)
			return
		}
		body, err := fs.ReadFile(sub, name)
		if err != nil {
			http.NotFound(w, r)
			return
		}
		for k, v := range h {
			w.Header().Set(k, v)
		}
		_, _ = w.Write(body)
	})
}

// Built reports whether the SDK bundle is embedded (make build / make run build it).
func Built() bool {
	_, err := fs.Stat(dist, "dist/rtc-agent.js")
	return err == nil
}
