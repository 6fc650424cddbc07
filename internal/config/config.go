// Package config holds the one configuration struct of the rtcagent server, its
// defaults, its flags and environment variables, and its validation.
package config

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
)

// Config is the server configuration. Every field names its flag, environment
// variable and default.
type Config struct {
	Addr      string // -addr, RTCAGENT_ADDR; default ":8080"
	DataFile  string // -data, RTCAGENT_DATA; SQLite file; default "rtcagent.db"; unused with DatabaseURL
	DBURL     string // -database-url, RTCAGENT_DATABASE_URL; postgres://… switches to the PostgreSQL store (scale-out)
	RedisURL  string // -redis-url, RTCAGENT_REDIS_URL; redis://… for fan-out across nodes, presence and the Live buffer (scale-out)
	RedisPfx  string // -redis-prefix, RTCAGENT_REDIS_PREFIX; key and channel prefix, to share a Redis; default "rtcagent"
	Secret    string // -token-secret, RTCAGENT_TOKEN_SECRET; HS256 secret of connection tokens (>= 16 bytes); required unless -dev, refused with it
	TokenAud  string // -token-audience, RTCAGENT_TOKEN_AUDIENCE; when set, tokens must name it in aud
	TokenIss  string // -token-issuer, RTCAGENT_TOKEN_ISSUER; when set, tokens must carry it as iss
	Dev       bool   // -dev, RTCAGENT_DEV; enables POST /api/dev/token (anyone can get a token for any user) with a random secret of its own; refused with Secret, DBURL or RedisURL
	LogLevel  string // -log-level, RTCAGENT_LOG_LEVEL; debug, info, warn, error; default info
	Origins   string // -allowed-origins, RTCAGENT_ALLOWED_ORIGINS; comma-separated page origins (WebSocket, /ag-ui); default any
	System    string // -system-prompt, RTCAGENT_SYSTEM_PROMPT; default a short built-in prompt
	SysFile   string // -system-prompt-file, RTCAGENT_SYSTEM_PROMPT_FILE; file whose content is the system prompt; exclusive with System
	Prices    string // -prices, RTCAGENT_PRICES; JSON price table file (USD per million tokens per model) extending the built-in one
	Provider  string // -model-provider, RTCAGENT_MODEL_PROVIDER; openai, anthropic or scripted; default: openai when RTCAGENT_OPENAI_API_KEY or -openai-base-url is set, anthropic when RTCAGENT_ANTHROPIC_API_KEY is set, else scripted (the demo model)
	Script    string // -script, RTCAGENT_SCRIPT; JSON script file for the scripted model; default the built-in demo script
	OpenAIURL string // -openai-base-url, RTCAGENT_OPENAI_BASE_URL; default https://api.openai.com/v1 (Ollama: http://localhost:11434/v1)
	OpenAIKey string // RTCAGENT_OPENAI_API_KEY (environment only)
	OpenAIMdl string // -openai-model, RTCAGENT_OPENAI_MODEL; default gpt-4o-mini
	AnthURL   string // -anthropic-base-url, RTCAGENT_ANTHROPIC_BASE_URL; default https://api.anthropic.com
	AnthKey   string // RTCAGENT_ANTHROPIC_API_KEY (environment only)
	AnthMdl   string // -anthropic-model, RTCAGENT_ANTHROPIC_MODEL; default claude-sonnet-4-5
	MaxTokens int    // -max-tokens, RTCAGENT_MAX_TOKENS; per model step; default 4096
	MCPConfig string // -mcp-config, RTCAGENT_MCP_CONFIG; JSON file listing MCP servers whose tools the server offers and executes
	Retries   int    // -model-retries, RTCAGENT_MODEL_RETRIES; retries of a step after a transient provider error; default 3, 0 disables

	RetryWait    time.Duration // -model-retry-backoff, RTCAGENT_MODEL_RETRY_BACKOFF; first wait before a retry, doubled each time; default 1s
	ModelIdle    time.Duration // -model-idle-timeout, RTCAGENT_MODEL_IDLE_TIMEOUT; longest silence of a model stream (headers, then between events) before the step fails as retryable; default 60s
	ModelStep    time.Duration // -model-step-timeout, RTCAGENT_MODEL_STEP_TIMEOUT; longest model step, request to last event, before it fails as retryable; default 10m
	LeaseTTL     time.Duration // -lease-ttl, RTCAGENT_LEASE_TTL; session lease; default 30s
	NodeTTL      time.Duration // -node-ttl, RTCAGENT_NODE_TTL; node liveness record, renewed every third of it: a dead node's sessions fail over after it; default 3s
	PollInterval time.Duration // -poll-interval, RTCAGENT_POLL_INTERVAL; inbox/deadline backstop poll; default 1s
	ExecTimeout  time.Duration // -exec-timeout, RTCAGENT_EXEC_TIMEOUT; RTC execution deadline; default 5m
	HumanTimeout time.Duration // -human-timeout, RTCAGENT_HUMAN_TIMEOUT; confirmation/askUser wait and checkpoint TTL; default 24h
	MsgRate      int           // -message-rate, RTCAGENT_MESSAGE_RATE; v1.message.send per user and minute (per node); default 20, -1 disables
	MsgBurst     int           // -message-burst, RTCAGENT_MESSAGE_BURST; messages a user may send at once; default 10
	StepLimit    int           // -step-limit, RTCAGENT_STEP_LIMIT; model steps per turn; default 50
	Active       int           // -active-sessions, RTCAGENT_ACTIVE_SESSIONS; sessions this node works on at once (model steps, server-side tools); others wait their turn; default 256
	CompactAt    int           // -compact-threshold, RTCAGENT_COMPACT_THRESHOLD; context tokens past which older history is summarised before the next step; default 100000, 0 disables
	CompactKeep  int           // -compact-keep, RTCAGENT_COMPACT_KEEP; tokens of recent history kept verbatim after a summary; default 0 = a fifth of the threshold
	Retention    time.Duration // -update-retention, RTCAGENT_UPDATE_RETENTION; Topic history kept; default 168h
	ShutdownWait time.Duration // -shutdown-timeout, RTCAGENT_SHUTDOWN_TIMEOUT; default 10s
	// OTLPEndpoint is the OTLP/HTTP endpoint traces go to (-otlp-endpoint;
	// also OTEL_EXPORTER_OTLP_ENDPOINT); empty and no variable = no tracing.
	OTLPEndpoint string
	// AuditRetention is how long the audit records of ended tool calls are kept
	// (-audit-retention, RTCAGENT_AUDIT_RETENTION); 0 = forever (the default).
	AuditRetention time.Duration
}

// Default returns the defaults.
func Default() Config {
	return Config{Addr: ":8080", DataFile: "rtcagent.db", RedisPfx: "rtcagent", LogLevel: "info", OpenAIMdl: "gpt-4o-mini", AnthMdl: "claude-sonnet-4-5",
		MaxTokens: 4096, Retries: 3, RetryWait: time.Second, ModelIdle: time.Minute, ModelStep: 10 * time.Minute, LeaseTTL: 30 * time.Second, NodeTTL: 3 * time.Second,
		PollInterval: time.Second, ExecTimeout: 5 * time.Minute,
		HumanTimeout: 24 * time.Hour, StepLimit: 50, Active: 256, CompactAt: 100000, MsgRate: 20, MsgBurst: 10, Retention: 7 * 24 * time.Hour, ShutdownWait: 10 * time.Second}
}

// Parse reads flags from args, with environment variables as defaults.
func Parse(args []string, getenv func(string) string) (Config, error) {
	c := Default()
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: rtcagent serve [flags]   (each flag also reads the environment variable in parentheses)")
		fs.PrintDefaults()
	}
	str := func(p *string, name, env, usage string) {
		if v := getenv(env); v != "" {
			*p = v
		}
		fs.StringVar(p, name, *p, usage+" ("+env+")")
	}
	dur := func(p *time.Duration, name, env, usage string) {
		if v, err := time.ParseDuration(getenv(env)); err == nil {
			*p = v
		}
		fs.DurationVar(p, name, *p, usage+" ("+env+")")
	}
	num := func(p *int, name, env, usage string) {
		if v, err := strconv.Atoi(getenv(env)); err == nil {
			*p = v
		}
		fs.IntVar(p, name, *p, usage+" ("+env+")")
	}
	str(&c.Addr, "addr", "RTCAGENT_ADDR", "listen address")
	str(&c.DataFile, "data", "RTCAGENT_DATA", "SQLite database file")
	str(&c.DBURL, "database-url", "RTCAGENT_DATABASE_URL", "PostgreSQL URL (scale-out); empty = SQLite")
	str(&c.RedisURL, "redis-url", "RTCAGENT_REDIS_URL", "Redis URL (scale-out); empty = in-process")
	str(&c.RedisPfx, "redis-prefix", "RTCAGENT_REDIS_PREFIX", "Redis key prefix")
	str(&c.Secret, "token-secret", "RTCAGENT_TOKEN_SECRET", "HS256 secret of connection tokens")
	str(&c.TokenAud, "token-audience", "RTCAGENT_TOKEN_AUDIENCE", "audience tokens must name; empty = not checked")
	str(&c.TokenIss, "token-issuer", "RTCAGENT_TOKEN_ISSUER", "issuer tokens must carry; empty = not checked")
	c.Dev = getenv("RTCAGENT_DEV") == "1" || getenv("RTCAGENT_DEV") == "true"
	fs.BoolVar(&c.Dev, "dev", c.Dev, "development mode: token endpoint for any user (RTCAGENT_DEV)")
	str(&c.LogLevel, "log-level", "RTCAGENT_LOG_LEVEL", "debug, info, warn or error")
	str(&c.Origins, "allowed-origins", "RTCAGENT_ALLOWED_ORIGINS", "comma-separated origins of the pages that may connect (WebSocket, /ag-ui); empty = any")
	str(&c.System, "system-prompt", "RTCAGENT_SYSTEM_PROMPT", "system prompt")
	str(&c.SysFile, "system-prompt-file", "RTCAGENT_SYSTEM_PROMPT_FILE", "file with the system prompt")
	str(&c.Prices, "prices", "RTCAGENT_PRICES", "path of a JSON file with prices (USD per million tokens per model) extending the built-in ones")
	str(&c.Provider, "model-provider", "RTCAGENT_MODEL_PROVIDER", "openai, anthropic or scripted")
	str(&c.Script, "script", "RTCAGENT_SCRIPT", "script file for the scripted model")
	str(&c.OpenAIURL, "openai-base-url", "RTCAGENT_OPENAI_BASE_URL", "OpenAI-compatible base URL")
	str(&c.OpenAIMdl, "openai-model", "RTCAGENT_OPENAI_MODEL", "OpenAI model")
	str(&c.AnthURL, "anthropic-base-url", "RTCAGENT_ANTHROPIC_BASE_URL", "Anthropic base URL")
	str(&c.AnthMdl, "anthropic-model", "RTCAGENT_ANTHROPIC_MODEL", "Anthropic model")
	str(&c.MCPConfig, "mcp-config", "RTCAGENT_MCP_CONFIG", "JSON file listing MCP servers (stdio command or Streamable HTTP URL)")
	num(&c.MaxTokens, "max-tokens", "RTCAGENT_MAX_TOKENS", "max output tokens per model step")
	num(&c.Retries, "model-retries", "RTCAGENT_MODEL_RETRIES", "retries after a transient provider error")
	dur(&c.RetryWait, "model-retry-backoff", "RTCAGENT_MODEL_RETRY_BACKOFF", "first wait before a model retry")
	dur(&c.ModelIdle, "model-idle-timeout", "RTCAGENT_MODEL_IDLE_TIMEOUT", "longest silence of a model stream before the step is retried")
	dur(&c.ModelStep, "model-step-timeout", "RTCAGENT_MODEL_STEP_TIMEOUT", "longest model step before it is retried")
	dur(&c.LeaseTTL, "lease-ttl", "RTCAGENT_LEASE_TTL", "session lease TTL")
	dur(&c.NodeTTL, "node-ttl", "RTCAGENT_NODE_TTL", "node liveness TTL: a dead node's sessions fail over after it")
	dur(&c.PollInterval, "poll-interval", "RTCAGENT_POLL_INTERVAL", "inbox and deadline poll")
	dur(&c.ExecTimeout, "exec-timeout", "RTCAGENT_EXEC_TIMEOUT", "RTC execution deadline")
	dur(&c.HumanTimeout, "human-timeout", "RTCAGENT_HUMAN_TIMEOUT", "confirmation/askUser wait and checkpoint TTL")
	num(&c.MsgRate, "message-rate", "RTCAGENT_MESSAGE_RATE", "messages per user and minute; -1 = unlimited")
	num(&c.MsgBurst, "message-burst", "RTCAGENT_MESSAGE_BURST", "messages a user may send at once")
	num(&c.StepLimit, "step-limit", "RTCAGENT_STEP_LIMIT", "model steps per turn")
	num(&c.Active, "active-sessions", "RTCAGENT_ACTIVE_SESSIONS", "sessions this node works on at once (model steps, server-side tools); others wait their turn")
	num(&c.CompactAt, "compact-threshold", "RTCAGENT_COMPACT_THRESHOLD", "context tokens past which history is summarised; 0 = never")
	num(&c.CompactKeep, "compact-keep", "RTCAGENT_COMPACT_KEEP", "tokens of recent history kept after a summary; 0 = a fifth of the threshold")
	dur(&c.Retention, "update-retention", "RTCAGENT_UPDATE_RETENTION", "Topic history retention")
	str(&c.OTLPEndpoint, "otlp-endpoint", "RTCAGENT_OTLP_ENDPOINT", "OTLP/HTTP endpoint for traces, e.g. http://localhost:4318; empty = OTEL_EXPORTER_OTLP_ENDPOINT or none")
	dur(&c.AuditRetention, "audit-retention", "RTCAGENT_AUDIT_RETENTION", "how long audit records of ended tool calls are kept; 0 = forever")
	dur(&c.ShutdownWait, "shutdown-timeout", "RTCAGENT_SHUTDOWN_TIMEOUT", "graceful shutdown limit")
	c.OpenAIKey = getenv("RTCAGENT_OPENAI_API_KEY")
	c.AnthKey = getenv("RTCAGENT_ANTHROPIC_API_KEY")
	if err := fs.Parse(args); err != nil {
		return c, err
	}
	if c.Provider == "" {
		switch {
		case c.OpenAIKey != "" || c.OpenAIURL != "":
			c.Provider = "openai"
		case c.AnthKey != "":
			c.Provider = "anthropic"
		default:
			c.Provider = "scripted"
		}
	}
	return c, c.Validate()
}

// Validate checks the configuration.
func (c Config) Validate() error {
	var errs []error
	if c.Secret == "" && !c.Dev {
		errs = append(errs, errors.New("token secret is required (-token-secret or RTCAGENT_TOKEN_SECRET), or run with -dev"))
	}
	if c.Dev && (c.DBURL != "" || c.RedisURL != "") {
		errs = append(errs, errors.New("-dev is for a single local server: it serves a token for any user to any origin, so it is refused with -database-url or -redis-url (a deployment); drop -dev and set -token-secret"))
	}
	if c.Dev && c.Secret != "" {
		errs = append(errs, errors.New("-dev hands a token signed with the server's secret to anyone who asks, so it is refused with -token-secret or RTCAGENT_TOKEN_SECRET (a real secret would mint real tokens for any user); drop one of them: -dev keeps its own random secret"))
	}
	if c.Secret != "" && len(c.Secret) < 16 {
		errs = append(errs, errors.New("token secret must be at least 16 bytes"))
	}
	switch c.Provider {
	case "openai", "anthropic", "scripted":
	default:
		errs = append(errs, fmt.Errorf("model provider %q: one of openai, anthropic, scripted", c.Provider))
	}
	if c.Provider == "anthropic" && c.AnthKey == "" {
		errs = append(errs, errors.New("anthropic needs RTCAGENT_ANTHROPIC_API_KEY"))
	}
	if c.DBURL != "" && !strings.HasPrefix(c.DBURL, "postgres://") && !strings.HasPrefix(c.DBURL, "postgresql://") {
		errs = append(errs, errors.New("database URL must start with postgres://"))
	}
	if c.RedisURL != "" && !strings.HasPrefix(c.RedisURL, "redis://") && !strings.HasPrefix(c.RedisURL, "rediss://") {
		errs = append(errs, errors.New("redis URL must start with redis:// or rediss://"))
	}
	if c.System != "" && c.SysFile != "" {
		errs = append(errs, errors.New("set either -system-prompt or -system-prompt-file, not both"))
	}
	if c.CompactAt < 0 || c.CompactKeep < 0 || (c.CompactAt > 0 && c.CompactKeep >= c.CompactAt) {
		errs = append(errs, errors.New("compact threshold and keep must not be negative, and keep must be below the threshold"))
	}
	if c.NodeTTL < 300*time.Millisecond {
		errs = append(errs, errors.New("node TTL must be at least 300ms"))
	}
	if c.ModelIdle <= 0 || c.ModelStep <= 0 {
		errs = append(errs, errors.New("model idle and step timeouts must be positive"))
	}
	if c.LeaseTTL < 300*time.Millisecond || c.PollInterval <= 0 || c.ExecTimeout <= 0 || c.HumanTimeout <= 0 || c.StepLimit <= 0 {
		errs = append(errs, errors.New("lease TTL (>= 300ms), poll interval, timeouts and step limit must be positive"))
	}
	if c.Active < 1 || c.Active > maxActive {
		errs = append(errs, fmt.Errorf("active sessions must be between 1 and %d", maxActive))
	}
	return errors.Join(errs...)
}

// maxActive bounds -active-sessions: each active session may hold a model
// stream and a database connection's turn.
const maxActive = 100000

// AllowedOrigins splits Origins.
func (c Config) AllowedOrigins() []string {
	var out []string
	for _, o := range strings.Split(c.Origins, ",") {
		if o = strings.TrimSpace(o); o != "" {
			out = append(out, o)
		}
	}
	return out
}

// Getenv is os.Getenv, for Parse.
var Getenv = os.Getenv
