package server

import (
	"context"
	"log/slog"
	"time"

	"github.com/rtcagent/rtcagent/internal/mcptools"
	"github.com/rtcagent/rtcagent/internal/protocol"
)

// mcpStartWait is how long startup waits for the MCP servers' first tool lists,
// so the first turns see their tools; servers not up by then join later.
const mcpStartWait = 15 * time.Second

// startMCP connects to the configured MCP servers.
func startMCP(ctx context.Context, cfg *mcptools.Config, lim protocol.Limits, log *slog.Logger) *mcptools.Manager {
	m := mcptools.Start(cfg, mcptools.Options{Logger: log, ResultBytes: lim.ToolResultBytes})
	wctx, cancel := context.WithTimeout(ctx, mcpStartWait)
	defer cancel()
	if err := m.Ready(wctx); err != nil {
		log.Warn("MCP servers not ready at start; their tools are offered once they connect", "err", err)
	}
	log.Info("MCP tools", "servers", len(cfg.Servers), "tools", len(m.Tools()))
	return m
}

// closeMCP ends the MCP connections (stdio servers' processes stop), if any.
func (s *Server) closeMCP() {
	if s.mcp != nil {
		s.mcp.Close()
	}
}
