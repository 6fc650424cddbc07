package mcptools

import (
	"context"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/rtcagent/rtcagent/internal/protocol"
)

// ViewResource reads resource uri of MCP server server for one of its tools'
// views (tools.ViewTools): within appReadTimeout, its contents at most
// protocol.AppResourceBytes together (the SDK has received the answer whole
// by then: at most the transport's message limit).
func (m *Manager) ViewResource(ctx context.Context, server, uri string) ([]protocol.AppResourceContent, error) {
	c, ok := m.conns[server]
	if !ok {
		return nil, protocol.Errorf(protocol.CodeNotFound, "no MCP server %q", server)
	}
	s := c.get()
	if s == nil {
		return nil, protocol.Errorf(protocol.CodeUnavailable, "the MCP server %q is not connected", server)
	}
	ctx, cancel := context.WithTimeout(ctx, appReadTimeout)
	defer cancel()
	res, err := s.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri})
	if err != nil {
		return nil, protocol.Errorf(protocol.CodeUnavailable, "%s", bound(fmt.Errorf("MCP server %q, resource %q: %w", server, uri, err), m.opts.ResultBytes))
	}
	var out []protocol.AppResourceContent
	size := 0
	for _, rc := range res.Contents {
		if rc == nil {
			continue
		}
		if size += len(rc.URI) + len(rc.MIMEType) + len(rc.Text) + len(rc.Blob); size > protocol.AppResourceBytes {
			return nil, protocol.Errorf(protocol.CodeTooLarge, "the resource %q is more than %d bytes", uri, protocol.AppResourceBytes)
		}
		out = append(out, protocol.AppResourceContent{URI: rc.URI, MIMEType: rc.MIMEType, Text: rc.Text, Blob: rc.Blob})
	}
	return out, nil
}
