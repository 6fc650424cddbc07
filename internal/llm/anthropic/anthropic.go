package anthropic

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"

	sdk "github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/option"

	"github.com/rtcagent/rtcagent/internal/llm"
	"github.com/rtcagent/rtcagent/internal/llm/llmwire"
)

const (
	// DefaultBaseURL is Anthropic's API origin (the SDK adds /v1/messages).
	DefaultBaseURL = "https://api.anthropic.com"
	// DefaultMaxTokens is used when neither Config nor Request sets a cap; the
	// Messages API requires one.
	DefaultMaxTokens = 4096
)

// Config configures a Model; only Model is required. BaseURL is the API's
// origin without /v1, DefaultBaseURL when empty; MaxTokens is DefaultMaxTokens
// when 0, since the Messages API requires a cap.
type Config = llmwire.Config

// Model is an llm.Model backed by Anthropic's Messages API. Safe for concurrent
// use.
type Model struct {
	cfg    Config
	client sdk.Client
}

var _ llm.Model = (*Model)(nil)

// options binds the shared client set-up to this SDK.
var options = llmwire.Options[option.RequestOption]{
	BaseURL: option.WithBaseURL, MaxRetries: option.WithMaxRetries, APIKey: option.WithAPIKey,
	HTTPClient: func(c *http.Client) option.RequestOption { return option.WithHTTPClient(c) },
}

// New checks cfg and builds the client. No ANTHROPIC_* environment variable or
// profile is read: the configuration is explicit.
func New(cfg Config) (*Model, error) {
	cfg, err := cfg.Prepare("anthropic", DefaultBaseURL)
	if err != nil {
		return nil, err
	}
	if cfg.MaxTokens == 0 {
		cfg.MaxTokens = DefaultMaxTokens
	}
	opts := append([]option.RequestOption{option.WithoutEnvironmentDefaults()}, options.For(cfg)...)
	return &Model{cfg: cfg, client: sdk.NewClient(opts...)}, nil
}

// Name returns "anthropic:<model>".
func (m *Model) Name() string { return "anthropic:" + m.cfg.Model }

// Stream sends the request and returns once the response headers are in, so an
// HTTP error is returned here rather than from the stream.
func (m *Model) Stream(ctx context.Context, req *llm.Request) (llm.Stream, error) {
	return wire.Stream(ctx, m.cfg.Deadlines, req, m.params, m.send)
}

// send starts the streamed request; the SDK stores the response into into.
func (m *Model) send(ctx context.Context, p sdk.MessageNewParams, into **http.Response) llmwire.Source[sdk.MessageStreamEventUnion] {
	return m.client.Messages.NewStreaming(ctx, p, option.WithResponseInto(into))
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
