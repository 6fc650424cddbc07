package mcptest

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

type sizeIn struct {
	Bytes int `json:"bytes"`
}

// taskSupport is what the listing declares for the tools that need (or may
// use) the MCP tasks extension; the SDK's Tool has no field for it.
var taskSupport = map[string]string{"tasked": "required", "tasked_optional": "optional"}

// addLimitTools adds the tools that test the client's bounds on what a server
// sends.
func addLimitTools(s *mcp.Server) {
	mcp.AddTool(s, &mcp.Tool{Name: "fail", Description: "Fail with a JSON-RPC error whose message has the given size."},
		func(ctx context.Context, req *mcp.CallToolRequest, in sizeIn) (*mcp.CallToolResult, any, error) {
			return nil, nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: strings.Repeat("e", in.Bytes)}
		})
	mcp.AddTool(s, &mcp.Tool{Name: "big", Description: "Answer with a text of the given size.", Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}},
		func(ctx context.Context, req *mcp.CallToolRequest, in sizeIn) (*mcp.CallToolResult, any, error) {
			return text(strings.Repeat("b", in.Bytes)), nil, nil
		})
	for name := range taskSupport {
		mcp.AddTool(s, &mcp.Tool{Name: name, Description: "A tool of the MCP tasks extension."},
			func(ctx context.Context, req *mcp.CallToolRequest, in struct{}) (*mcp.CallToolResult, any, error) {
				return text(name), nil, nil
			})
	}
	s.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			res, err := next(ctx, method, req)
			if l, ok := res.(*mcp.ListToolsResult); ok && err == nil {
				return withExecution{l}, nil
			}
			return res, err
		}
	})
}

// withExecution is a tools/list result with each tool's execution.taskSupport.
type withExecution struct{ *mcp.ListToolsResult }

func (w withExecution) MarshalJSON() ([]byte, error) {
	raw, err := json.Marshal(w.ListToolsResult)
	if err != nil {
		return nil, err
	}
	var res map[string]any
	if err := json.Unmarshal(raw, &res); err != nil {
		return nil, err
	}
	list, _ := res["tools"].([]any)
	for _, t := range list {
		if tool, ok := t.(map[string]any); ok {
			if ts, ok := taskSupport[tool["name"].(string)]; ok {
				tool["execution"] = map[string]any{"taskSupport": ts}
			}
		}
	}
	return json.Marshal(res)
}
