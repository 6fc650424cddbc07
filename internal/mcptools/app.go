package mcptools

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/rtcagent/rtcagent/internal/protocol"
)

// MCP Apps: a tool may declare a view (`_meta.ui.resourceUri`, a `ui://`
// resource of its server) that the chat shows in the call's card. The manager
// reads each view once its server lists the tool and keeps it in memory; the
// browser loads it from AppPath in a sandboxed frame of its own origin, under
// the CSP built here, and talks to it over postMessage.

const (
	// AppMIME is the media type of an MCP App's HTML.
	AppMIME = "text/html;profile=mcp-app"
	// MaxAppBytes bounds the HTML of one view.
	MaxAppBytes = 1 << 20
	// MaxAppsPerSrv bounds the distinct views read from one server.
	MaxAppsPerSrv = 16
	// AppsPrefix is where the server serves the views (see AppPath, AppHandler).
	AppsPrefix = "/mcp-apps/"
	// appReadTimeout bounds the read of one view, appsReadTimeout those of
	// one listing (the server's tools are offered once they are read).
	appReadTimeout  = 10 * time.Second
	appsReadTimeout = 20 * time.Second
)

// App is a tool's view: its HTML and the Content-Security-Policy it is served with.
type App struct {
	URI  string // the ui:// resource
	HTML []byte
	CSP  string
	ETag string
}

// AppPath is the path, on the RTC Agent server, of the view of the tool named
// name (as the model calls it).
func AppPath(name string) string { return AppsPrefix + name }

// uiOf returns the ui:// resource a tool declares as its view ("" for none),
// whether the model may call the tool and whether a view of its server may
// (`_meta.ui.visibility`: both when it is absent; ["app"] keeps the tool for
// views alone, ["model"] for the model alone).
func uiOf(t *mcp.Tool) (uri string, forModel, forView bool) {
	forModel, forView = true, true
	if ui, ok := t.Meta["ui"].(map[string]any); ok {
		uri, _ = ui["resourceUri"].(string)
		if vis, ok := ui["visibility"].([]any); ok {
			forModel = slices.Contains(vis, any("model"))
			forView = slices.Contains(vis, any("app"))
		}
	}
	if uri == "" {
		uri, _ = t.Meta["ui/resourceUri"].(string) // the name before the specification settled
	}
	if !strings.HasPrefix(uri, "ui://") || len(uri) > 2048 {
		uri = ""
	}
	return uri, forModel, forView
}

// readApps reads the views the listed tools declare (uris: tool name → ui://
// resource) and returns them by tool name. A view that cannot be read or
// served is left out (logged once): its tool is still offered, without it.
func (m *Manager) readApps(ctx context.Context, c *conn, s *mcp.ClientSession, uris map[string]string) map[string]App {
	ctx, cancel := context.WithTimeout(ctx, appsReadTimeout)
	defer cancel()
	byURI := map[string]*App{}
	out := map[string]App{}
	for _, name := range slices.Sorted(maps.Keys(uris)) {
		uri := uris[name]
		a, seen := byURI[uri]
		if !seen {
			if len(byURI) >= MaxAppsPerSrv {
				c.leftOut(m.log, "tool view left out: more views than the limit per server", "limit", MaxAppsPerSrv, "uri", uri)
				continue
			}
			app, err := readApp(ctx, s, uri)
			if err != nil {
				c.leftOut(m.log, "tool view left out", "uri", uri, "err", logErr(err))
			} else {
				a = &app
			}
			byURI[uri] = a
		}
		if a != nil {
			out[name] = *a
		}
	}
	return out
}

// readApp reads one view: the resource's HTML content, at most MaxAppBytes,
// and the CSP its `_meta.ui.csp` asks for.
func readApp(ctx context.Context, s *mcp.ClientSession, uri string) (App, error) {
	ctx, cancel := context.WithTimeout(ctx, appReadTimeout)
	defer cancel()
	res, err := s.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri})
	if err != nil {
		return App{}, err
	}
	for _, rc := range res.Contents {
		if rc == nil || !isAppMIME(rc.MIMEType) {
			continue
		}
		html := []byte(rc.Text)
		if len(rc.Blob) > 0 {
			html = rc.Blob
		}
		if len(html) == 0 {
			return App{}, fmt.Errorf("the view %s is empty", uri)
		}
		if len(html) > MaxAppBytes {
			return App{}, fmt.Errorf("the view is %d bytes, more than %d", len(html), MaxAppBytes)
		}
		csp, err := appCSP(rc.Meta)
		if err != nil {
			return App{}, err
		}
		sum := sha256.Sum256(append(append([]byte(csp), 0), html...))
		return App{URI: uri, HTML: html, CSP: csp, ETag: `"` + hex.EncodeToString(sum[:16]) + `"`}, nil
	}
	return App{}, fmt.Errorf("the resource has no content of type %s", AppMIME)
}

// isAppMIME accepts the MCP Apps media type, spaces around its parameter allowed.
func isAppMIME(t string) bool {
	return strings.EqualFold(strings.ReplaceAll(t, " ", ""), AppMIME)
}

// originRE is one origin a view may name in its CSP: https (wss for
// connections) on a host of two labels or more, a leading "*." for its
// subdomains. Plain http is refused, the person's own machine too: a view
// from a remote server must not reach the services running there.
var originRE = regexp.MustCompile(`^(https|wss)://(\*\.)?[a-z0-9-]+(\.[a-z0-9-]+)+(:[0-9]{1,5})?$`)

// appCSP builds a view's Content-Security-Policy. The frame is sandboxed
// (scripts, no same origin: an opaque origin with no storage or cookies of
// the server's), runs its own inline code, loads scripts, styles, images,
// fonts and media only inline or from the origins its `resourceDomains` name,
// fetches and opens sockets only to its `connectDomains` (nowhere when none),
// and frames, posts forms and sets a base URL nowhere. An origin of another
// form fails the view. (No CSP stops a frame from navigating itself: a view
// can always send what it knows to an address of its choosing, which is why
// it is shown only what its own MCP server is sent.)
func appCSP(meta mcp.Meta) (string, error) {
	var connect, load []string
	if ui, ok := meta["ui"].(map[string]any); ok {
		if csp, ok := ui["csp"].(map[string]any); ok {
			var err error
			if connect, err = origins(csp["connectDomains"]); err != nil {
				return "", err
			}
			if load, err = origins(csp["resourceDomains"]); err != nil {
				return "", err
			}
		}
	}
	res := strings.Join(load, " ")
	src := func(base string) string { return strings.TrimSpace(base + " " + res) }
	conn := "'none'"
	if len(connect) > 0 {
		conn = strings.Join(connect, " ")
	}
	return strings.Join([]string{
		"sandbox allow-scripts",
		"default-src 'none'",
		"script-src " + src("'unsafe-inline'"),
		"style-src " + src("'unsafe-inline'"),
		"img-src " + src("data:"),
		"font-src " + src("data:"),
		"media-src " + src("data:"),
		"connect-src " + conn,
		"frame-src 'none'",
		"form-action 'none'",
		"base-uri 'none'",
	}, "; "), nil
}

// origins reads a list of origins for the CSP (at most 32).
func origins(v any) ([]string, error) {
	if v == nil {
		return nil, nil
	}
	list, ok := v.([]any)
	if !ok || len(list) > 32 {
		return nil, fmt.Errorf("the view's CSP domains are not a list of at most 32 origins")
	}
	out := make([]string, 0, len(list))
	for _, e := range list {
		s, _ := e.(string)
		if !originRE.MatchString(s) {
			return nil, fmt.Errorf("the view's CSP names %q, not an origin (https://host[:port], wss:// for connections)", protocol.Cut(s, 80))
		}
		out = append(out, s)
	}
	return out, nil
}

// App returns the view of the tool named name, if its server declared one
// that could be read.
func (m *Manager) App(name string) (App, bool) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	a, ok := m.apps[name]
	return a, ok
}
