package openai

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	sdk "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/shared"

	"github.com/rtcagent/rtcagent/internal/llm"
)

// DefaultBaseURL is OpenAI's API; any OpenAI-compatible server works with its own
// base URL, e.g. http://localhost:11434/v1 for Ollama.
const DefaultBaseURL = "https://api.openai.com/v1"

// Config configures a Model. Only Model is required.
type Config struct {
	// BaseURL of the API including the version path; DefaultBaseURL when empty.
	BaseURL string
	// APIKey is sent as a bearer token; empty sends none, for local servers.
	APIKey string
	// Model is the model name the server knows, e.g. "gpt-4o" or "llama3.1".
	Model string
	// MaxTokens caps each completion (max_completion_tokens) unless the request
	// sets its own; 0 leaves it to the server.
	MaxTokens int
	// MaxRetries is how often the SDK itself retries a failed request; 0 never
	// does, leaving retries to the engine, which sees llm.Error.Retryable.
	MaxRetries int
	// HTTPClient is used for all requests; nil uses a client whose only timeout
	// is for response headers, since a streamed body may take minutes.
	HTTPClient *http.Client
	// Deadlines bound each step: a stream idle for longer than Deadlines.Idle, or
	// a step longer than Deadlines.Step, fails with a retryable llm.Error.
	Deadlines llm.Deadlines
}

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
	if cfg.Model == "" {
		return nil, errors.New("openai: Config.Model is required")
	}
	if cfg.MaxTokens < 0 || cfg.MaxRetries < 0 {
		return nil, errors.New("openai: Config.MaxTokens and MaxRetries must not be negative")
	}
	if cfg.BaseURL == "" {
		cfg.BaseURL = DefaultBaseURL
	}
	if cfg.HTTPClient == nil {
		cfg.HTTPClient = defaultHTTPClient()
	}
	opts := []option.RequestOption{
		option.WithBaseURL(cfg.BaseURL),
		option.WithMaxRetries(cfg.MaxRetries),
		option.WithHTTPClient(cfg.HTTPClient),
	}
	if cfg.APIKey != "" {
		opts = append(opts, option.WithAPIKey(cfg.APIKey))
	}
	// The service, not sdk.NewClient: the client would fill gaps in the config
	// from OPENAI_* environment variables.
	return &Model{cfg: cfg, svc: sdk.NewChatCompletionService(opts...)}, nil
}

func defaultHTTPClient() *http.Client {
	t, ok := http.DefaultTransport.(*http.Transport)
	if !ok {
		return &http.Client{}
	}
	t = t.Clone()
	t.ResponseHeaderTimeout = 10 * time.Minute
	return &http.Client{Transport: t}
}

// Name returns "openai:<model>".
func (m *Model) Name() string { return "openai:" + m.cfg.Model }

// Stream sends the request and returns once the response headers are in, so an
// HTTP error is returned here rather than from the stream.
func (m *Model) Stream(ctx context.Context, req *llm.Request) (llm.Stream, error) {
	params, err := m.params(req)
	if err != nil {
		return nil, &llm.Error{Category: "invalid_request", Err: fmt.Errorf("openai: %w", err)}
	}
	var resp *http.Response
	w := m.cfg.Deadlines.Start(ctx)
	st := m.svc.NewStreaming(w.Context(), params, option.WithResponseInto(&resp))
	if err := st.Err(); err != nil {
		st.Close()
		w.Stop()
		if se := w.Stalled(requestID(resp)); se != nil {
			return nil, se
		}
		return nil, mapError(ctx, err, resp)
	}
	return newStream(ctx, w, st, resp), nil
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
