package mcptools

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/rtcagent/rtcagent/internal/protocol"
)

// A read's contents are bounded to AppResourceBytes in all: what the server
// sends beside text and blobs (each content's URI and media type) counts too.
func TestViewResourceBoundsAllItsContents(t *testing.T) {
	s := mcp.NewServer(&mcp.Implementation{Name: "big", Version: "1"}, nil)
	long := "data://x/" + strings.Repeat("a", 3<<20)
	s.AddResource(&mcp.Resource{URI: "data://x/one", Name: "one", MIMEType: "text/plain"},
		func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: long, MIMEType: strings.Repeat("m", 2<<20), Text: "x"}}}, nil
		})
	hs := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil))
	t.Cleanup(hs.Close)
	m := start(t, Server{Name: "b", URL: hs.URL})
	out, err := m.ViewResource(context.Background(), "b", "data://x/one")
	if protocol.CodeOf(err) == protocol.CodeTooLarge {
		return
	}
	b, _ := json.Marshal(protocol.AppResourceResult{Contents: out})
	t.Fatalf("err %v; the answer is %d bytes, more than AppResourceBytes %d", err, len(b), protocol.AppResourceBytes)
}
