// Package web embeds the built browser SDK (web/dist, produced by `npm run build`
// in web/) and serves it: the SDK under /sdk/ with the exact headers the build lists
// for each file in dist/headers.json (the sandbox page's CSP carries a hash of this
// build), the demo page at /, and the example apps at /examples/<name>/ (their
// files and headers are listed in dist/examples/headers.json).
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
// at /, and /examples/<path> for the files listed in examples/headers.json (a
// directory's index.html at its trailing slash). Anything else is 404: build metadata is never
// served.
func Handler() http.Handler {
	sub, _ := fs.Sub(dist, "dist")
	sdk := readHeaders(sub, "headers.json", "")
	examples := readHeaders(sub, "examples/headers.json", "examples/")
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/" || r.URL.Path == "/index.html" {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			w.Header().Set("Cache-Control", "no-cache")
			_, _ = w.Write(demoPage)
			return
		}
		name, ok := strings.CutPrefix(r.URL.Path, "/sdk/")
		headers := sdk
		if strings.HasPrefix(r.URL.Path, "/examples/") {
			name, ok, headers = r.URL.Path[1:], true, examples
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

// readHeaders reads a list of files and their headers (absent: none), keyed by
// the file's path in dist/: prefix plus the listed name.
func readHeaders(dist fs.FS, path, prefix string) map[string]map[string]string {
	listed := map[string]map[string]string{}
	if raw, err := fs.ReadFile(dist, path); err == nil {
		_ = json.Unmarshal(raw, &listed)
	}
	out := make(map[string]map[string]string, len(listed))
	for name, h := range listed {
		out[prefix+name] = h
	}
	return out
}

// Built reports whether the SDK bundle is embedded (make build / make run build it).
func Built() bool {
	_, err := fs.Stat(dist, "dist/rtc-agent.js")
	return err == nil
}
