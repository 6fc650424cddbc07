package web

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"testing/fstest"
)

func gz(t *testing.T, b []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	w, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	_, _ = w.Write(b)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func gunzip(t *testing.T, b []byte) []byte {
	t.Helper()
	r, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	out, err := io.ReadAll(r)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func get(t *testing.T, h http.Handler, path string, header ...string) *http.Response {
	t.Helper()
	req := httptest.NewRequest(http.MethodGet, path, nil)
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec.Result()
}

func body(t *testing.T, r *http.Response) []byte {
	t.Helper()
	b, err := io.ReadAll(r.Body)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// A build as the SDK's: a stable entry, a content-hashed chunk, the sandbox
// page, a type declaration, each (but the chunk) with a gzip file beside it.
func testBuild(t *testing.T) (fstest.MapFS, map[string][]byte) {
	files := map[string][]byte{
		"rtc-agent.js":                   []byte(strings.Repeat("export const a = 1;\n", 200)),
		"rtc-agent-bash-AGN6EEUT.js":     []byte("export const bash = 1;\n"),
		"sandbox.html":                   []byte("<!doctype html>" + strings.Repeat("<p>sandbox</p>", 100)),
		"types/index.d.ts":               []byte(strings.Repeat("export declare const a: number;\n", 50)),
		"types/index.d.ts.map.unlisted":  []byte("never served"),
		"rtc-agent.js.map":               []byte(`{"version":3}`),
		"rtc-agent-bash-AGN6EEUT.js.map": []byte(`{"version":3}`),
	}
	headers := map[string]map[string]string{
		"rtc-agent.js":                   {"Cache-Control": "no-cache", "Content-Type": "text/javascript; charset=utf-8", "Access-Control-Allow-Origin": "*"},
		"rtc-agent-bash-AGN6EEUT.js":     {"Cache-Control": "no-cache", "Content-Type": "text/javascript; charset=utf-8"},
		"rtc-agent.js.map":               {"Cache-Control": "no-cache", "Content-Type": "application/json"},
		"rtc-agent-bash-AGN6EEUT.js.map": {"Cache-Control": "no-cache", "Content-Type": "application/json"},
		"sandbox.html":                   {"Cache-Control": "no-cache", "Content-Type": "text/html; charset=utf-8", "Content-Security-Policy": "sandbox allow-scripts"},
	}
	raw, _ := json.Marshal(headers)
	m := fstest.MapFS{"headers.json": {Data: raw}}
	for name, b := range files {
		m[name] = &fstest.MapFile{Data: b}
	}
	for _, name := range []string{"rtc-agent.js", "sandbox.html", "types/index.d.ts"} {
		m[name+".gz"] = &fstest.MapFile{Data: gz(t, files[name])}
	}
	return m, files
}

func TestServesPrecompressedFilesTheBrowserAccepts(t *testing.T) {
	m, files := testBuild(t)
	h := newHandler(m, []byte("demo"))
	for _, tc := range []struct {
		accept string
		gzip   bool
	}{
		{"gzip, deflate, br", true},
		{"gzip", true},
		{"GZIP;q=0.5", true},
		{"*", true},
		{"", false},
		{"deflate", false},
		{"gzip;q=0", false},
		{"*;q=0.3, gzip;q=0", false},
		{"identity", false},
	} {
		r := get(t, h, "/sdk/rtc-agent.js", "Accept-Encoding", tc.accept)
		b := body(t, r)
		if r.StatusCode != 200 {
			t.Fatalf("%q: status %d", tc.accept, r.StatusCode)
		}
		if got := r.Header.Get("Vary"); got != "Accept-Encoding" {
			t.Errorf("%q: Vary %q", tc.accept, got)
		}
		if tc.gzip {
			if r.Header.Get("Content-Encoding") != "gzip" {
				t.Fatalf("%q: Content-Encoding %q", tc.accept, r.Header.Get("Content-Encoding"))
			}
			if len(b) >= len(files["rtc-agent.js"]) {
				t.Errorf("%q: %d compressed bytes for %d", tc.accept, len(b), len(files["rtc-agent.js"]))
			}
			b = gunzip(t, b)
		} else if r.Header.Get("Content-Encoding") != "" {
			t.Fatalf("%q: Content-Encoding %q", tc.accept, r.Header.Get("Content-Encoding"))
		}
		if !bytes.Equal(b, files["rtc-agent.js"]) {
			t.Errorf("%q: body does not decode to the file", tc.accept)
		}
		if r.Header.Get("Content-Type") != "text/javascript; charset=utf-8" || r.Header.Get("Access-Control-Allow-Origin") != "*" {
			t.Errorf("%q: the build's headers are lost: %v", tc.accept, r.Header)
		}
	}
	// A file without a compressed copy is sent as built, whatever is accepted.
	r := get(t, h, "/sdk/rtc-agent-bash-AGN6EEUT.js", "Accept-Encoding", "gzip, br")
	if b := body(t, r); r.Header.Get("Content-Encoding") != "" || !bytes.Equal(b, files["rtc-agent-bash-AGN6EEUT.js"]) {
		t.Errorf("uncompressed chunk: %v %q", r.Header, b)
	}
}

func TestETagsAnswerRevalidationWithNotModified(t *testing.T) {
	m, files := testBuild(t)
	h := newHandler(m, nil)
	plain := get(t, h, "/sdk/sandbox.html")
	zipped := get(t, h, "/sdk/sandbox.html", "Accept-Encoding", "gzip")
	tag, ztag := plain.Header.Get("ETag"), zipped.Header.Get("ETag")
	if !strings.HasPrefix(tag, `"`) || !strings.HasSuffix(tag, `"`) || tag == ztag || ztag == "" {
		t.Fatalf("ETags %q and %q: each representation needs its own", tag, ztag)
	}
	for _, tc := range []struct {
		accept, ifNoneMatch string
		status              int
	}{
		{"", tag, 304},
		{"", "W/" + tag, 304},
		{"", `"other", ` + tag, 304},
		{"", "*", 304},
		{"gzip", ztag, 304},
		{"gzip", tag, 200}, // the browser's copy is another representation
		{"", ztag, 200},
		{"", `"other"`, 200},
	} {
		r := get(t, h, "/sdk/sandbox.html", "Accept-Encoding", tc.accept, "If-None-Match", tc.ifNoneMatch)
		b := body(t, r)
		if r.StatusCode != tc.status {
			t.Errorf("%q / %q: status %d, want %d", tc.accept, tc.ifNoneMatch, r.StatusCode, tc.status)
			continue
		}
		if tc.status == 304 {
			if len(b) != 0 || r.Header.Get("ETag") == "" || r.Header.Get("Cache-Control") != "no-cache" {
				t.Errorf("304 with %d bytes, headers %v", len(b), r.Header)
			}
		} else if r.Header.Get("Content-Security-Policy") != "sandbox allow-scripts" {
			t.Errorf("the sandbox page lost its CSP: %v", r.Header)
		}
	}
	// A new build with other content gets another ETag.
	m["sandbox.html"] = &fstest.MapFile{Data: append([]byte("changed"), files["sandbox.html"]...)}
	delete(m, "sandbox.html.gz")
	if r := get(t, newHandler(m, nil), "/sdk/sandbox.html", "If-None-Match", tag); r.StatusCode != 200 {
		t.Errorf("changed file: status %d", r.StatusCode)
	}
}

func TestHashedChunksAreImmutableAndEntriesRevalidated(t *testing.T) {
	m, _ := testBuild(t)
	h := newHandler(m, []byte("demo"))
	for path, want := range map[string]string{
		"/sdk/rtc-agent-bash-AGN6EEUT.js":     CacheImmutable,
		"/sdk/rtc-agent.js":                   "no-cache",
		"/sdk/sandbox.html":                   "no-cache",
		"/sdk/rtc-agent.js.map":               "no-cache",
		"/sdk/rtc-agent-bash-AGN6EEUT.js.map": "no-cache", // a map may change under the same chunk name
		"/sdk/types/index.d.ts":               "no-cache",
		"/":                                   "no-cache",
	} {
		r := get(t, h, path)
		if r.StatusCode != 200 || r.Header.Get("Cache-Control") != want {
			t.Errorf("%s: %d, Cache-Control %q, want %q", path, r.StatusCode, r.Header.Get("Cache-Control"), want)
		}
	}
	r := get(t, h, "/sdk/types/index.d.ts", "Accept-Encoding", "gzip")
	if r.Header.Get("Content-Type") != "application/typescript; charset=utf-8" || r.Header.Get("Content-Encoding") != "gzip" {
		t.Errorf("type declarations: %v", r.Header)
	}
	if !strings.Contains(string(gunzip(t, body(t, r))), "export declare const a") {
		t.Error("type declarations: wrong body")
	}
	for _, path := range []string{"/sdk/headers.json", "/sdk/rtc-agent.js.gz", "/sdk/types/index.d.ts.map.unlisted", "/sdk/", "/sdk/../headers.json", "/rtc-agent.js"} {
		if r := get(t, h, path); r.StatusCode != 404 {
			t.Errorf("%s: %d, want 404", path, r.StatusCode)
		}
	}
	req := httptest.NewRequest(http.MethodHead, "/sdk/rtc-agent.js", nil)
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	if rec.Code != 200 || rec.Body.Len() != 0 || rec.Header().Get("Content-Length") == "" {
		t.Errorf("HEAD: %d, %d bytes, %v", rec.Code, rec.Body.Len(), rec.Header())
	}
}

// The embedded build itself (when built): every served script and page has
// brotli and gzip copies that decode to it, and every chunk but the entry is
// named by its content hash (a build that stopped hashing names would be cached
// for a year under a stable name).
func TestEmbeddedBuildIsPrecompressedAndHashed(t *testing.T) {
	if !Built() {
		t.Skip("web/dist is not built (make web)")
	}
	sub, _ := fs.Sub(dist, "dist")
	if _, err := fs.Stat(sub, "rtc-agent.js.br"); err != nil {
		t.Skip("web/dist is not compressed (npm run build runs compress.mjs)")
	}
	raw, err := fs.ReadFile(sub, "headers.json")
	if err != nil {
		t.Fatal(err)
	}
	var headers map[string]map[string]string
	if err := json.Unmarshal(raw, &headers); err != nil {
		t.Fatal(err)
	}
	h := Handler()
	node, _ := exec.LookPath("node")
	for name := range headers {
		// Entries keep stable names (the build gives them their types' header).
		entry := headers[name]["X-TypeScript-Types"] != ""
		if strings.HasSuffix(name, ".js") && !entry && !hashedName.MatchString(name) {
			t.Errorf("chunk %s is not named by its content hash", name)
		}
		if strings.HasSuffix(name, ".map") {
			continue
		}
		file, _ := fs.ReadFile(sub, name)
		for _, e := range []struct{ accept, suffix string }{{"gzip", ".gz"}, {"br", ".br"}} {
			r := get(t, h, "/sdk/"+name, "Accept-Encoding", e.accept)
			got := body(t, r)
			if _, err := fs.Stat(sub, name+e.suffix); err != nil {
				// compress.mjs keeps only copies smaller than the file: tiny files may have none.
				if len(file) > 1024 {
					t.Errorf("%s: %d bytes and no %s copy", name, len(file), e.accept)
				} else if r.Header.Get("Content-Encoding") != "" || !bytes.Equal(got, file) {
					t.Errorf("%s: not sent as built", name)
				}
				continue
			}
			if r.Header.Get("Content-Encoding") != e.accept || len(got) >= len(file) {
				t.Errorf("%s: %q, %d bytes for %d", name, r.Header.Get("Content-Encoding"), len(got), len(file))
				continue
			}
			if e.accept == "gzip" {
				got = gunzip(t, got)
			} else if node == "" {
				continue
			} else {
				cmd := exec.Command(node, "-e", "process.stdout.write(require('zlib').brotliDecompressSync(require('fs').readFileSync(0)))")
				cmd.Stdin = bytes.NewReader(got)
				if got, err = cmd.Output(); err != nil {
					t.Errorf("%s: brotli: %v", name, err)
				}
			}
			if !bytes.Equal(got, file) {
				t.Errorf("%s: the %s body does not decode to the file", name, e.accept)
			}
		}
	}
}

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
	if r.StatusCode != 200 || !strings.HasPrefix(r.Header.Get("Content-Type"), "text/html") || !strings.Contains(string(body), `<script type="module" src="app.js"></script>`) {
		t.Fatalf("/examples/shop/: %d %v %.200s", r.StatusCode, r.Header, body)
	}
	app := get("/examples/shop/app.js")
	if app.StatusCode != 200 || !strings.HasPrefix(app.Header.Get("Content-Type"), "text/javascript") || app.Header.Get("X-Content-Type-Options") != "nosniff" {
		t.Fatalf("app.js: %d %v", app.StatusCode, app.Header)
	}
	// The app bundles the SDK; its chunks (the chat UI, code loaded on first use) are served next to it.
	code, _ := io.ReadAll(app.Body)
	chunks := regexp.MustCompile(`"\./([\w-]+\.js)"`).FindAllStringSubmatch(string(code), -1)
	if len(chunks) == 0 {
		t.Fatalf("app.js imports no chunk")
	}
	for _, c := range chunks {
		if r := get("/examples/shop/" + c[1]); r.StatusCode != 200 || !strings.HasPrefix(r.Header.Get("Content-Type"), "text/javascript") {
			t.Errorf("%s: %d %v", c[1], r.StatusCode, r.Header)
		}
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
