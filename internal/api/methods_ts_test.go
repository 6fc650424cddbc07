package api

import (
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"testing"

	"github.com/rtcagent/rtcagent/internal/protocol"
)

// TestBrowserMethodMap checks that the browser SDK's method map
// (web/src/protocol/methods.ts), which types agent.call, names exactly the
// methods this server serves: a method added here or there without the other
// fails.
func TestBrowserMethodMap(t *testing.T) {
	src, err := os.ReadFile(filepath.Join("..", "..", "web", "src", "protocol", "methods.ts"))
	if err != nil {
		t.Fatal(err)
	}
	var browser []string
	for _, m := range regexp.MustCompile(`(?m)^\s*"(v1\.[a-z_]+\.[a-z_]+)":`).FindAllSubmatch(src, -1) {
		browser = append(browser, string(m[1]))
	}
	a := New(nil, nil, protocol.Limits{}, slog.New(slog.NewTextHandler(io.Discard, nil)))
	var server []string
	for name := range a.methods {
		server = append(server, name)
	}
	slices.Sort(browser)
	slices.Sort(server)
	if !slices.Equal(browser, server) {
		t.Fatalf("methods.ts has %v\nthe server serves %v", browser, server)
	}
}
