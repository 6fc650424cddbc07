package anthropic

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"time"

	sdk "github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/option"

	"github.com/rtcagent/rtcagent/internal/llm"
)

const (
	// DefaultBaseURL is Anthropic's API origin (the SDK adds /v1/messages).
	DefaultBaseURL = "https://api.anthropic.com"
	// DefaultMaxTokens is used when neither Config nor Request sets a cap; the
	// Messages API requires one.
	DefaultMaxTokens = 4096
)

// Config configures a Model. Only Model is required.
type Config struct {
	// BaseURL of the API without /v1; DefaultBaseURL when empty.
	BaseURL string
	// APIKey authenticates requests; empty sends no credential, e.g. behind a
	// proxy that adds its own.
	APIKey string
	// Model is the model name, e.g. "claude-sonnet-4-5".
	Model string
	// MaxTokens caps each response unless the request sets its own;
	// DefaultMaxTokens when 0.
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

// Model is an llm.Model backed by Anthropic's Messages API. Safe for concurrent
// use.
type Model struct {
	cfg    Config
	client sdk.Client
}

var _ llm.Model = (*Model)(nil)

// New checks cfg and builds the client. No ANTHROPIC_* environment variable or
// profile is read: the configuration is explicit.
func New(cfg Config) (*Model, error) {
	if cfg.Model == "" {
		return nil, errors.New("anthropic: Config.Model is required")
	}
	if cfg.MaxTokens < 0 || cfg.MaxRetries < 0 {
		return nil, errors.New("anthropic: Config.MaxTokens and MaxRetries must not be negative")
	}
	if cfg.BaseURL == "" {
		cfg.BaseURL = DefaultBaseURL
	}
	if cfg.MaxTokens == 0 {
		cfg.MaxTokens = DefaultMaxTokens
	}
	if cfg.HTTPClient == nil {
		cfg.HTTPClient = defaultHTTPClient()
	}
	opts := []option.RequestOption{
		option.WithoutEnvironmentDefaults(),
		option.WithBaseURL(cfg.BaseURL),
		option.WithMaxRetries(cfg.MaxRetries),
		option.WithHTTPClient(cfg.HTTPClient),
	}
	if cfg.APIKey != "" {
		opts = append(opts, option.WithAPIKey(cfg.APIKey))
	}
	return &Model{cfg: cfg, client: sdk.NewClient(opts...)}, nil
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

// Name returns "anthropic:<model>".
func (m *Model) Name() string { return "anthropic:" + m.cfg.Model }

// Stream sends the request and returns once the response headers are in, so an
// HTTP error is returned here rather than from the stream.
func (m *Model) Stream(ctx context.Context, req *llm.Request) (llm.Stream, error) {
	params, err := m.params(req)
	if err != nil {
		return nil, &llm.Error{Category: "invalid_request", Err: fmt.Errorf("anthropic: %w", err)}
	}
	var resp *http.Response
	w := m.cfg.Deadlines.Start(ctx)
	st := m.client.Messages.NewStreaming(w.Context(), params, option.WithResponseInto(&resp))
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

func (m *Model) params(req *llm.Request) (sdk.MessageNewParams, error) {
	p := sdk.MessageNewParams{Model: sdk.Model(m.cfg.Model), MaxTokens: int64(m.cfg.MaxTokens)}
	if req.MaxTokens > 0 {
		p.MaxTokens = int64(req.MaxTokens)
	}
	if req.System != "" {
		p.System = []sdk.TextBlockParam{{Text: req.System}}
	}
	msgs, err := transcript(req.Messages)
	if err != nil {
		return p, err
	}
	p.Messages = msgs
	for _, t := range req.Tools {
		schema, err := inputSchema(t.Parameters)
		if err != nil {
			return p, fmt.Errorf("tool %s: %w", t.Name, err)
		}
		tool := sdk.ToolParam{Name: t.Name, InputSchema: schema}
		if t.Description != "" {
			tool.Description = sdk.String(t.Description)
		}
		p.Tools = append(p.Tools, sdk.ToolUnionParam{OfTool: &tool})
	}
	return p, nil
}

// turn is one message of the Messages API under construction.
type turn struct {
	role    llm.Role // RoleUser or RoleAssistant
	results []sdk.ContentBlockParamUnion
	blocks  []sdk.ContentBlockParamUnion
}

// transcript maps llm messages to Messages API turns. The API wants user and
// assistant turns to alternate, every tool result in the user turn right after
// its tool_use, tool results before any text in that turn, and no empty text
// blocks; so tool messages become tool_result blocks of a user turn and
// consecutive turns of one role are merged.
func transcript(msgs []llm.Message) ([]sdk.MessageParam, error) {
	var turns []*turn
	add := func(role llm.Role, result bool, b sdk.ContentBlockParamUnion) {
		if len(turns) == 0 || turns[len(turns)-1].role != role {
			turns = append(turns, &turn{role: role})
		}
		t := turns[len(turns)-1]
		if result {
			t.results = append(t.results, b)
		} else {
			t.blocks = append(t.blocks, b)
		}
	}
	for i, msg := range msgs {
		switch msg.Role {
		case llm.RoleUser:
			if msg.Text != "" {
				add(llm.RoleUser, false, sdk.NewTextBlock(msg.Text))
			}
		case llm.RoleTool:
			r := sdk.ToolResultBlockParam{ToolUseID: msg.ToolCallID}
			if msg.Text != "" {
				r.Content = []sdk.ToolResultBlockParamContentUnion{{OfText: &sdk.TextBlockParam{Text: msg.Text}}}
			}
			add(llm.RoleUser, true, sdk.ContentBlockParamUnion{OfToolResult: &r})
		case llm.RoleAssistant:
			if msg.Text != "" {
				add(llm.RoleAssistant, false, sdk.NewTextBlock(msg.Text))
			}
			for _, tc := range msg.ToolCalls {
				add(llm.RoleAssistant, false, sdk.NewToolUseBlock(tc.ID, objectOrEmpty(tc.Arguments), tc.Name))
			}
		default:
			return nil, fmt.Errorf("message %d: unknown role %q", i, msg.Role)
		}
	}
	out := make([]sdk.MessageParam, 0, len(turns))
	for _, t := range turns {
		blocks := append(t.results, t.blocks...)
		if t.role == llm.RoleUser {
			out = append(out, sdk.NewUserMessage(blocks...))
		} else {
			out = append(out, sdk.NewAssistantMessage(blocks...))
		}
	}
	return out, nil
}

// objectOrEmpty returns args if they are a JSON object, else {}: the API rejects
// a tool_use whose input is not an object, and a model's broken arguments must
// not make the rest of the conversation unsendable.
func objectOrEmpty(args json.RawMessage) json.RawMessage {
	trimmed := bytes.TrimSpace(args)
	if len(trimmed) > 0 && trimmed[0] == '{' && json.Valid(trimmed) {
		return trimmed
	}
	return json.RawMessage("{}")
}

// inputSchema splits a JSON Schema object into the SDK's fields.
func inputSchema(raw json.RawMessage) (sdk.ToolInputSchemaParam, error) {
	var s sdk.ToolInputSchemaParam
	if len(bytes.TrimSpace(raw)) == 0 {
		return s, nil
	}
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		return s, fmt.Errorf("parameters are not a JSON object: %w", err)
	}
	if typ, ok := m["type"]; ok && typ != "object" {
		return s, fmt.Errorf("parameters must have type object, not %v", typ)
	}
	delete(m, "type")
	if props, ok := m["properties"]; ok {
		s.Properties = props
		delete(m, "properties")
	}
	if req, ok := m["required"].([]any); ok {
		for _, r := range req {
			name, ok := r.(string)
			if !ok {
				return s, errors.New("parameters: required must list strings")
			}
			s.Required = append(s.Required, name)
		}
		delete(m, "required")
	}
	if len(m) > 0 {
		s.ExtraFields = m
	}
	return s, nil
}
