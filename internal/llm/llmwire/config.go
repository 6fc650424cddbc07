package llmwire

import (
	"errors"
	"net/http"
	"time"

	"github.com/rtcagent/rtcagent/internal/llm"
)

// Config configures a provider's Model. Only Model is required; each provider
// documents what BaseURL and a MaxTokens of 0 mean for it.
type Config struct {
	// BaseURL of the API; the provider's default when empty.
	BaseURL string
	// APIKey authenticates requests; empty sends no credential, e.g. for a local
	// server or behind a proxy that adds its own.
	APIKey string
	// Model is the model name the server knows, e.g. "gpt-4o" or "claude-sonnet-4-5".
	Model string
	// MaxTokens caps each response unless the request sets its own.
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

// headerTimeout is the default HTTP client's wait for the response headers.
const headerTimeout = 10 * time.Minute

// Prepare checks c for the named provider and fills in what is left empty: an
// error, naming the provider, when Model is empty or MaxTokens or MaxRetries is
// negative; baseURL for an empty BaseURL; the default HTTP client for a nil one.
func (c Config) Prepare(provider, baseURL string) (Config, error) {
	if c.Model == "" {
		return c, errors.New(provider + ": Config.Model is required")
	}
	if c.MaxTokens < 0 || c.MaxRetries < 0 {
		return c, errors.New(provider + ": Config.MaxTokens and MaxRetries must not be negative")
	}
	if c.BaseURL == "" {
		c.BaseURL = baseURL
	}
	if c.HTTPClient == nil {
		c.HTTPClient = defaultHTTPClient()
	}
	return c, nil
}

func defaultHTTPClient() *http.Client {
	t, ok := http.DefaultTransport.(*http.Transport)
	if !ok {
		return &http.Client{}
	}
	t = t.Clone()
	t.ResponseHeaderTimeout = headerTimeout
	return &http.Client{Transport: t}
}

// Options names one SDK's constructors of the request options a Config sets;
// O is the SDK's option type.
type Options[O any] struct {
	BaseURL    func(string) O
	MaxRetries func(int) O
	HTTPClient func(*http.Client) O
	APIKey     func(string) O
}

// For returns the SDK's options for c: its base URL, retries and HTTP client,
// and its API key only when there is one, so that none is sent otherwise.
func (o Options[O]) For(c Config) []O {
	opts := []O{o.BaseURL(c.BaseURL), o.MaxRetries(c.MaxRetries), o.HTTPClient(c.HTTPClient)}
	if c.APIKey != "" {
		opts = append(opts, o.APIKey(c.APIKey))
	}
	return opts
}
