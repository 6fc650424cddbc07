package openai

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	sdk "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/shared"

	"github.com/rtcagent/rtcagent/internal/llm"
	"github.com/rtcagent/rtcagent/internal/llm/llmwire"
)

// DefaultBaseURL is OpenAI's API; any OpenAI-compatible server works with its own
// base URL, e.g. http://localhost:11434/v1 for Ollama.
const DefaultBaseURL = "https://api.openai.com/v1"

// Config configures a Model; only Model is required. BaseURL includes the
// version path, DefaultBaseURL when empty; MaxTokens is sent as
// max_completion_tokens, and 0 leaves the cap to the server. An empty APIKey
// sends no bearer token, for local servers.
type Config = llmwire.Config

// Model is an llm.Model backed by an OpenAI-compatible Chat Completions server.
// Safe for concurrent use.
type Model struct {
	cfg Config
	svc sdk.ChatCompletionService
}

var _ llm.Model = (*Model)(nil)

// New checks cfg and builds the client. Environment variables such as
// OPENAI_API_KEY are deliberately not read: the configuration is explicit.
func New(cfg Config) (*Model, error) {
	cfg, err := cfg.Prepare("openai", DefaultBaseURL)
	if err != nil {
		return nil, err
	}
	// The service, not sdk.NewClient: the client would fill gaps in the config
	// from OPENAI_* environment variables.
	return &Model{cfg: cfg, svc: sdk.NewChatCompletionService(options.For(cfg)...)}, nil
}

// options binds the shared client set-up to this SDK.
var options = llmwire.Options[option.RequestOption]{
	BaseURL: option.WithBaseURL, MaxRetries: option.WithMaxRetries, APIKey: option.WithAPIKey,
	HTTPClient: func(c *http.Client) option.RequestOption { return option.WithHTTPClient(c) },
}

// Name returns "openai:<model>".
func (m *Model) Name() string { return "openai:" + m.cfg.Model }

// Stream sends the request and returns once the response headers are in, so an
// HTTP error is returned here rather than from the stream.
func (m *Model) Stream(ctx context.Context, req *llm.Request) (llm.Stream, error) {
	return wire.Stream(ctx, m.cfg.Deadlines, req, m.params, m.send)
}

// send starts the streamed request; the SDK stores the response into into.
func (m *Model) send(ctx context.Context, p sdk.ChatCompletionNewParams, into **http.Response) llmwire.Source[sdk.ChatCompletionChunk] {
	return m.svc.NewStreaming(ctx, p, option.WithResponseInto(into))
}

func (m *Model) params(req *llm.Request) (sdk.ChatCompletionNewParams, error) {
	p := sdk.ChatCompletionNewParams{
		Model:         shared.ChatModel(m.cfg.Model),
		StreamOptions: sdk.ChatCompletionStreamOptionsParam{IncludeUsage: sdk.Bool(true)},
	}
	if n := req.MaxTokens; n > 0 {
		p.MaxCompletionTokens = sdk.Int(int64(n))
	} else if m.cfg.MaxTokens > 0 {
		p.MaxCompletionTokens = sdk.Int(int64(m.cfg.MaxTokens))
	}
	if req.System != "" {
		p.Messages = append(p.Messages, sdk.SystemMessage(req.System))
	}
	for i, msg := range req.Messages {
		switch msg.Role {
		case llm.RoleUser:
			p.Messages = append(p.Messages, sdk.UserMessage(msg.Text))
		case llm.RoleAssistant:
			p.Messages = append(p.Messages, assistantMessage(msg))
		case llm.RoleTool:
			p.Messages = append(p.Messages, sdk.ToolMessage(msg.Text, msg.ToolCallID))
		default:
			return p, fmt.Errorf("message %d: unknown role %q", i, msg.Role)
		}
	}
	for _, t := range req.Tools {
		fn := shared.FunctionDefinitionParam{Name: t.Name}
		if t.Description != "" {
			fn.Description = sdk.String(t.Description)
		}
		if len(t.Parameters) > 0 {
			if err := json.Unmarshal(t.Parameters, &fn.Parameters); err != nil {
				return p, fmt.Errorf("tool %s: parameters are not a JSON object: %w", t.Name, err)
			}
		}
		p.Tools = append(p.Tools, sdk.ChatCompletionFunctionTool(fn))
	}
	return p, nil
}

func assistantMessage(msg llm.Message) sdk.ChatCompletionMessageParamUnion {
	var a sdk.ChatCompletionAssistantMessageParam
	// Content may only be left out when there are tool calls.
	if msg.Text != "" || len(msg.ToolCalls) == 0 {
		a.Content.OfString = sdk.String(msg.Text)
	}
	for _, tc := range msg.ToolCalls {
		args := string(tc.Arguments)
		if strings.TrimSpace(args) == "" {
			args = "{}"
		}
		a.ToolCalls = append(a.ToolCalls, sdk.ChatCompletionMessageToolCallUnionParam{
			OfFunction: &sdk.ChatCompletionMessageFunctionToolCallParam{
				ID:       tc.ID,
				Function: sdk.ChatCompletionMessageFunctionToolCallFunctionParam{Name: tc.Name, Arguments: args},
			},
		})
	}
	return sdk.ChatCompletionMessageParamUnion{OfAssistant: &a}
}
