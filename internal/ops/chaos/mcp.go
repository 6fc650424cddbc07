package chaos

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"time"

	"github.com/rtcagent/rtcagent/internal/testkit/mcptest"
)

// mcpServer names the run's MCP server: its tools reach the model as
// "mcp__<tool>" and run on the server (server RTCs).
const mcpServer = "mcp"

// startMCP serves the test MCP server (internal/mcptools/mcptest: echo is
// read-only, sleep has effects and so asks in edit mode) over Streamable HTTP
// on loopback, from this process, so it outlives the nodes' kills; and writes
// the -mcp-config file every node loads.
func (h *harness) startMCP(dir string) (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	h.mcp = &http.Server{Handler: mcptest.Handler(mcptest.Options{}), ReadHeaderTimeout: 10 * time.Second}
	go func() {
		if err := h.mcp.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			h.logf("mcp server: %v", err)
		}
	}()
	file := filepath.Join(dir, "mcp.json")
	doc := fmt.Sprintf(`{"servers": {%q: {"url": %q}}}`, mcpServer, "http://"+ln.Addr().String()+"/")
	return file, os.WriteFile(file, []byte(doc), 0o600)
}
