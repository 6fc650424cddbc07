// Package mcptest is a small MCP server written with the official Go SDK, for
// tests of the server-side MCP tools: over stdio as a child process
// (mcptest/mcpserver) or as a Streamable HTTP handler in the test process.
//
// Tools: echo (read-only), sleep (counts each call in a file, then waits; not
// idempotent), idle (counted too; idempotent: waits only the first time per tag), ask (elicits a form, the thirteen-field ProfileSchema or a link from the
// client and returns the answer), sample (asks the client's model and returns
// its answer),
// grow (adds the tool late, which sends tools/list_changed), fail (a protocol
// error of a given size), big (an answer of a given size), and tasked and
// tasked_optional (listed with execution.taskSupport "required" and
// "optional"), and progress (sends progress notifications, then answers); the
// command also has crash (ends its process).
package mcptest

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Options configure the test server.
type Options struct {
	// CountFile, when set, gets one line per started sleep call, so a test can
	// tell how often a call ran across restarts of its client.
	CountFile string
	// Exit, when set, is what the crash tool calls (the command: os.Exit).
	Exit func()
}

type echoIn struct {
	Text string `json:"text"`
}

type sleepIn struct {
	MS  int    `json:"ms"`
	Tag string `json:"tag,omitempty"`
}

type sampleIn struct {
	Prompt string `json:"prompt"`
}

type askIn struct {
	Question string `json:"question"`
	// Form "profile" asks for every kind of field the specification allows
	// (ProfileSchema), "wide" for more fields than a form shows; URL asks the
	// person to open a link instead.
	Form string `json:"form,omitempty"`
	URL  string `json:"url,omitempty"`
}

// wideSchema is a form of more fields than RTC Agent shows (65).
func wideSchema() string {
	props := make([]string, 65)
	for i := range props {
		props[i] = fmt.Sprintf(`"f%d":{"type":"string"}`, i)
	}
	return `{"type":"object","properties":{` + strings.Join(props, ",") + `}}`
}

// ProfileSchema is the form of ask with form "profile": thirteen fields, one
// of each kind and constraint the MCP specification allows in a form.
const ProfileSchema = `{"type":"object","properties":{
	"name":{"type":"string","title":"Full name","minLength":2,"maxLength":60},
	"email":{"type":"string","title":"Email","format":"email"},
	"site":{"type":"string","title":"Web site","format":"uri"},
	"born":{"type":"string","title":"Birthday","format":"date"},
	"meet":{"type":"string","title":"Meeting time","format":"date-time"},
	"age":{"type":"integer","title":"Age","minimum":18,"maximum":130},
	"height":{"type":"number","title":"Height in metres","minimum":0.5,"maximum":2.5},
	"news":{"type":"boolean","title":"Send me news","default":false},
	"size":{"type":"string","title":"T-shirt size","enum":["S","M","L"]},
	"plan":{"type":"string","title":"Plan","oneOf":[{"const":"free","title":"Free"},{"const":"pro","title":"Professional"}],"default":"free"},
	"colour":{"type":"string","title":"Colour","enum":["r","g"],"enumNames":["Red","Green"]},
	"langs":{"type":"array","title":"Languages","items":{"type":"string","enum":["go","ts","rust"]},"minItems":1},
	"days":{"type":"array","title":"Days","items":{"anyOf":[{"const":"mon","title":"Monday"},{"const":"fri","title":"Friday"}]}}
},"required":["name","email","age","size"]}`

var countMu sync.Mutex

func count(file, tag string) error {
	if file == "" {
		return nil
	}
	countMu.Lock()
	defer countMu.Unlock()
	f, err := os.OpenFile(file, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintln(f, tag)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

func text(s string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}
}

// NewServer returns the test server.
func NewServer(o Options) *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "mcptest", Version: "1.0.0"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "echo", Description: "Echo the text back.", Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}},
		func(ctx context.Context, req *mcp.CallToolRequest, in echoIn) (*mcp.CallToolResult, any, error) {
			return text("echo: " + in.Text), nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "sleep", Description: "Record the call, then wait ms milliseconds."},
		func(ctx context.Context, req *mcp.CallToolRequest, in sleepIn) (*mcp.CallToolResult, any, error) {
			if err := count(o.CountFile, "sleep "+in.Tag); err != nil {
				return nil, nil, err
			}
			select {
			case <-ctx.Done():
				return nil, nil, ctx.Err()
			case <-time.After(time.Duration(in.MS) * time.Millisecond):
			}
			return text(fmt.Sprintf("slept %d ms", in.MS)), nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "idle", Description: "Record the call; the first call of a tag waits ms milliseconds, later ones return at once.",
		Annotations: &mcp.ToolAnnotations{IdempotentHint: true}},
		func(ctx context.Context, req *mcp.CallToolRequest, in sleepIn) (*mcp.CallToolResult, any, error) {
			seen := false
			if o.CountFile != "" {
				data, _ := os.ReadFile(o.CountFile)
				seen = strings.Contains(string(data), "idle "+in.Tag+"\n")
			}
			if err := count(o.CountFile, "idle "+in.Tag); err != nil {
				return nil, nil, err
			}
			if !seen {
				select {
				case <-ctx.Done():
					return nil, nil, ctx.Err()
				case <-time.After(time.Duration(in.MS) * time.Millisecond):
				}
			}
			return text("idle done"), nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "ask", Description: "Ask the user a question through the client and return the answer."},
		func(ctx context.Context, req *mcp.CallToolRequest, in askIn) (*mcp.CallToolResult, any, error) {
			// Elicitation in the multi round-trip style of the current protocol:
			// the first answer asks for input, the call comes again with it.
			if len(req.Params.InputResponses) == 0 {
				if in.URL != "" {
					return &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{"q": &mcp.ElicitParams{Mode: "url", Message: in.Question,
						URL: in.URL, ElicitationID: "e1"}}}, nil, nil
				}
				form := `{"type":"object","properties":{"answer":{"type":"string","description":"Your answer"}},"required":["answer"]}`
				switch in.Form {
				case "profile":
					form = ProfileSchema
				case "wide":
					form = wideSchema()
				}
				// Sent as written: its properties in order.
				return &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{"q": &mcp.ElicitParams{Message: in.Question, RequestedSchema: json.RawMessage(form)}}}, nil, nil
			}
			res, ok := req.Params.InputResponses["q"].(*mcp.ElicitResult)
			if !ok {
				return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: "no answer to the question"}}}, nil, nil
			}
			b, _ := json.Marshal(res.Content)
			return text(res.Action + " " + string(b)), nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "sample", Description: "Ask the client's model and return its answer."},
		func(ctx context.Context, req *mcp.CallToolRequest, in sampleIn) (*mcp.CallToolResult, any, error) {
			// Multi round-trip, as the current protocol asks of a request
			// made while serving one.
			if len(req.Params.InputResponses) == 0 {
				return &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{"s": &mcp.CreateMessageParams{SystemPrompt: "You are a test server.",
					MaxTokens: 50, Messages: []*mcp.SamplingMessage{{Role: "user", Content: &mcp.TextContent{Text: in.Prompt}}}}}}, nil, nil
			}
			// An answer comes back in the shape of the tools variant: a list of content.
			res, ok := req.Params.InputResponses["s"].(*mcp.CreateMessageWithToolsResult)
			if !ok || len(res.Content) == 0 {
				return text(fmt.Sprintf("refused: %v", req.Params.InputResponses["s"])), nil, nil
			}
			answer, _ := res.Content[0].(*mcp.TextContent)
			if answer == nil {
				return text("refused: no text"), nil, nil
			}
			return text("sampled: " + answer.Text + " (" + res.Model + ")"), nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "grow", Description: "Add the tool late, which changes the tool list."},
		func(ctx context.Context, req *mcp.CallToolRequest, in struct{}) (*mcp.CallToolResult, any, error) {
			mcp.AddTool(s, &mcp.Tool{Name: "late", Description: "A tool added while the server runs."},
				func(ctx context.Context, req *mcp.CallToolRequest, in struct{}) (*mcp.CallToolResult, any, error) {
					return text("late"), nil, nil
				})
			return text("grown"), nil, nil
		})
	addLimitTools(s)
	addProgressTool(s)
	addAppTools(s)
	if o.Exit != nil {
		mcp.AddTool(s, &mcp.Tool{Name: "crash", Description: "End the server's process."},
			func(ctx context.Context, req *mcp.CallToolRequest, in struct{}) (*mcp.CallToolResult, any, error) {
				o.Exit()
				return text("unreachable"), nil, nil
			})
	}
	return s
}

// Handler serves a fresh test server per session over Streamable HTTP.
func Handler(o Options) http.Handler {
	s := NewServer(o)
	return mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil)
}
