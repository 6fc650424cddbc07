// Package web embeds the built browser SDK (web/dist, produced by `npm run build`
// in web/) and serves it: the SDK under /sdk/ with the exact headers the build lists
// for each file in dist/headers.json (the sandbox page's CSP carries a hash of this
// build), the demo page at /, and the example apps at /examples/<name>/ (their
// files and headers are listed in dist/examples/headers.json).
//
// Each file is sent brotli- or gzip-compressed when the browser accepts it and
// the build precompressed it (NAME.br, NAME.gz beside it, written by
// compress.mjs; nothing is compressed per request), with an ETag naming the exact
// bytes sent, so a browser revalidating gets 304 Not Modified without a body.
// Files whose name carries a hash of their content (the lazily loaded chunks) are
// cached for a year and never revalidated; the stable entry names (rtc-agent.js,
// sandbox.html) and everything else are revalidated on every use (no-cache).
package web

import (
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"encoding/json"
	"io/fs"
	"net/http"
	"path"
	"regexp"
	"strconv"
	"strings"
)

//go:embed all:dist
var dist embed.FS

//go:embed demo/index.html
var demoPage []byte

// CacheImmutable is the Cache-Control of files named by their content's hash.
const CacheImmutable = "public, max-age=31536000, immutable"

// hashedName matches the chunks esbuild names rtc-agent-<name>-<content hash>.js.
var hashedName = regexp.MustCompile(`^rtc-agent-[A-Za-z0-9_-]+-[A-Z2-7]{8}\.js$`)

// declarationHeaders are sent with the SDK's type declarations (*.d.ts).
var declarationHeaders = map[string]string{
	"Cache-Control":               "no-cache",
	"X-Content-Type-Options":      "nosniff",
	"Content-Type":                "application/typescript; charset=utf-8",
	"Access-Control-Allow-Origin": "*",
}

// encodings the server can send, in order of preference, with the suffix of
// their precompressed files.
var encodings = []struct{ name, suffix string }{{"br", ".br"}, {"gzip", ".gz"}}

// representation is one encoding of a file: its bytes and their ETag.
type representation struct {
	encoding string // "" for the file as built
	body     []byte
	etag     string
}

type asset struct {
	headers map[string]string
	// variants: the precompressed representations (preference order), then the file as built.
	variants []representation
}

// Handler serves /sdk/<file> for the files listed in headers.json and the type
// declarations (*.d.ts) in dist, the demo page at /, and /examples/<path> for the
// files listed in examples/headers.json (a directory's index.html at its trailing
// slash). Anything else is 404: build metadata and the compressed files
// themselves are never served by name.
func Handler() http.Handler {
	sub, _ := fs.Sub(dist, "dist")
	return newHandler(sub, demoPage)
}

func newHandler(files fs.FS, demo []byte) http.Handler {
	sdk := readHeaders(files, "headers.json", "")
	_ = fs.WalkDir(files, ".", func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".d.ts") && !strings.HasPrefix(p, "examples/") {
			if _, listed := sdk[p]; !listed {
				sdk[p] = declarationHeaders
			}
		}
		return nil
	})
	assets := loadAssets(files, sdk)
	examples := loadAssets(files, readHeaders(files, "examples/headers.json", "examples/"))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/" || r.URL.Path == "/index.html" {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			w.Header().Set("Cache-Control", "no-cache")
			_, _ = w.Write(demo)
			return
		}
		name, ok := strings.CutPrefix(r.URL.Path, "/sdk/")
		listing := assets
		if strings.HasPrefix(r.URL.Path, "/examples/") {
			name, ok, listing = r.URL.Path[1:], true, examples
			if strings.HasSuffix(name, "/") {
				name += "index.html"
			} else if _, dir := listing[name+"/index.html"]; dir {
				http.Redirect(w, r, r.URL.Path+"/", http.StatusMovedPermanently)
				return
			}
		}
		a, listed := listing[name]
		if !ok || !listed {
			http.NotFound(w, r)
			return
		}
		rep := a.pick(r.Header.Get("Accept-Encoding"))
		h := w.Header()
		for k, v := range a.headers {
			h.Set(k, v)
		}
		if len(a.variants) > 1 {
			h.Set("Vary", "Accept-Encoding")
		}
		if rep.encoding != "" {
			h.Set("Content-Encoding", rep.encoding)
		}
		h.Set("ETag", rep.etag)
		if noneMatch(r.Header.Get("If-None-Match"), rep.etag) {
			w.WriteHeader(http.StatusNotModified)
			return
		}
		h.Set("Content-Length", strconv.Itoa(len(rep.body)))
		w.WriteHeader(http.StatusOK)
		if r.Method != http.MethodHead {
			_, _ = w.Write(rep.body)
		}
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

// loadAssets reads the listed files of the build with their precompressed
// representations. A listed file that is missing is left out (404).
func loadAssets(files fs.FS, headers map[string]map[string]string) map[string]*asset {
	assets := make(map[string]*asset, len(headers))
	for name, h := range headers {
		if !fs.ValidPath(name) || path.Clean(name) != name {
			continue
		}
		body, err := fs.ReadFile(files, name)
		if err != nil {
			continue
		}
		sum := sha256.Sum256(body)
		tag := hex.EncodeToString(sum[:12])
		a := &asset{headers: make(map[string]string, len(h)+1)}
		for k, v := range h {
			a.headers[k] = v
		}
		if hashedName.MatchString(name) {
			a.headers["Cache-Control"] = CacheImmutable
		}
		for _, e := range encodings {
			if c, err := fs.ReadFile(files, name+e.suffix); err == nil {
				a.variants = append(a.variants, representation{e.name, c, `"` + tag + "-" + e.name + `"`})
			}
		}
		a.variants = append(a.variants, representation{"", body, `"` + tag + `"`})
		assets[name] = a
	}
	return assets
}

// pick returns the preferred representation the Accept-Encoding header allows.
func (a *asset) pick(acceptEncoding string) representation {
	for _, v := range a.variants[:len(a.variants)-1] {
		if accepts(acceptEncoding, v.encoding) {
			return v
		}
	}
	return a.variants[len(a.variants)-1]
}

// accepts reports whether an Accept-Encoding header value allows coding: listed
// (or covered by "*") with a q-value above zero.
func accepts(header, coding string) bool {
	q, star := -1.0, -1.0
	for _, part := range strings.Split(header, ",") {
		name, params, _ := strings.Cut(strings.TrimSpace(part), ";")
		name = strings.ToLower(strings.TrimSpace(name))
		weight := 1.0
		for _, p := range strings.Split(params, ";") {
			k, v, ok := strings.Cut(strings.TrimSpace(p), "=")
			if ok && strings.EqualFold(strings.TrimSpace(k), "q") {
				if f, err := strconv.ParseFloat(strings.TrimSpace(v), 64); err == nil {
					weight = f
				} else {
					weight = 0
				}
			}
		}
		switch name {
		case coding:
			q = weight
		case "*":
			star = weight
		}
	}
	if q < 0 {
		q = star
	}
	return q > 0
}

// noneMatch reports whether an If-None-Match header value names etag (weak
// comparison, as RFC 9110 asks for If-None-Match) or is "*".
func noneMatch(header, etag string) bool {
	for _, t := range strings.Split(header, ",") {
		t = strings.TrimPrefix(strings.TrimSpace(t), "W/")
		if t == "*" || t == etag {
			return true
		}
	}
	return false
}

// Built reports whether the SDK bundle is embedded (make build / make run build it).
func Built() bool {
	_, err := fs.Stat(dist, "dist/rtc-agent.js")
	return err == nil
}
