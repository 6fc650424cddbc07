package mcptest

import (
	"context"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

type progressIn struct {
	Count        int     `json:"count"`
	Total        float64 `json:"total,omitempty"`
	MessageBytes int     `json:"message_bytes,omitempty"`
	Gate         string  `json:"gate,omitempty"`
	Bad          bool    `json:"bad,omitempty"`
}

// addProgressTool adds progress: it sends count progress notifications (1 to
// count, of total when given, each with the message "step i of count" or, with
// message_bytes, a message of that size) as fast as it can, then waits until the
// file gate exists (when given), then answers. With bad it first sends a
// notification of a negative progress and one with a token of no call of the
// client's.
func addProgressTool(s *mcp.Server) {
	mcp.AddTool(s, &mcp.Tool{Name: "progress", Description: "Report progress several times, then answer."},
		func(ctx context.Context, req *mcp.CallToolRequest, in progressIn) (*mcp.CallToolResult, any, error) {
			token := req.Params.GetProgressToken()
			if token == nil {
				return text("no progress token"), nil, nil
			}
			notify := func(p mcp.ProgressNotificationParams) error { return req.Session.NotifyProgress(ctx, &p) }
			if in.Bad {
				if err := notify(mcp.ProgressNotificationParams{ProgressToken: token, Progress: -1, Message: "negative"}); err != nil {
					return nil, nil, err
				}
				if err := notify(mcp.ProgressNotificationParams{ProgressToken: "someone-else", Progress: 99, Message: "not yours"}); err != nil {
					return nil, nil, err
				}
			}
			for i := 1; i <= in.Count; i++ {
				msg := fmt.Sprintf("step %d of %d", i, in.Count)
				if in.MessageBytes > 0 {
					msg = strings.Repeat("m", in.MessageBytes)
				}
				if err := notify(mcp.ProgressNotificationParams{ProgressToken: token, Progress: float64(i), Total: in.Total, Message: msg}); err != nil {
					return nil, nil, err
				}
			}
			for in.Gate != "" {
				if _, err := os.Stat(in.Gate); err == nil {
					break
				}
				select {
				case <-ctx.Done():
					return nil, nil, ctx.Err()
				case <-time.After(10 * time.Millisecond):
				}
			}
			return text(fmt.Sprintf("reported %d times", in.Count)), nil, nil
		})
}
