package mcptools

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/url"
	"os"
	"regexp"
	"sort"
	"strings"
)

// Limits of a config file.
const (
	MaxServers      = 16       // servers in one config
	MaxToolsPerSrv  = 128      // tools offered from one server
	MaxTools        = 256      // tools offered from all servers
	MaxToolBytes    = 16 << 10 // description plus input schema of one tool
	maxConfigBytes  = 1 << 20
	maxArgs         = 64
	maxHeaders      = 32
	maxEnv          = 64
	maxValueBytes   = 8 << 10 // one argument, header or environment value
	maxToolNameSize = 64      // what OpenAI and Anthropic accept
)

// serverNameRE: the prefix of the server's tool names. No "__", which separates
// the server from the tool.
var serverNameRE = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9-]{0,15}$`)

// Server is one MCP server of the config: a command run over stdio, or a
// Streamable HTTP URL.
type Server struct {
	Name    string            `json:"-"`
	Command string            `json:"command,omitempty"`
	Args    []string          `json:"args,omitempty"`
	Env     map[string]string `json:"env,omitempty"`
	URL     string            `json:"url,omitempty"`
	Headers map[string]string `json:"headers,omitempty"`
}

// Config is the parsed -mcp-config file.
type Config struct {
	Servers []Server // sorted by name
}

// LoadConfig reads and checks a config file.
func LoadConfig(path string) (*Config, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("mcp config: %w", err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxConfigBytes+1))
	if err != nil {
		return nil, fmt.Errorf("mcp config %s: %w", path, err)
	}
	if len(data) > maxConfigBytes {
		return nil, fmt.Errorf("mcp config %s: larger than %d bytes", path, maxConfigBytes)
	}
	return ParseConfig(data)
}

// ParseConfig checks a config document:
//
//	{"servers": {"files": {"command": "mcp-files", "args": ["/srv"], "env": {"K": "v"}},
//	             "search": {"url": "https://example.com/mcp", "headers": {"Authorization": "Bearer …"}}}}
//
// "mcpServers" is accepted in place of "servers".
func ParseConfig(data []byte) (*Config, error) {
	var doc struct {
		Servers    map[string]json.RawMessage `json:"servers"`
		MCPServers map[string]json.RawMessage `json:"mcpServers"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("mcp config: not a JSON object: %v", err)
	}
	if doc.Servers != nil && doc.MCPServers != nil {
		return nil, fmt.Errorf("mcp config: use either \"servers\" or \"mcpServers\", not both")
	}
	raw := doc.Servers
	if raw == nil {
		raw = doc.MCPServers
	}
	if len(raw) == 0 {
		return nil, fmt.Errorf("mcp config: no servers (expected {\"servers\": {\"<name>\": {...}}})")
	}
	if len(raw) > MaxServers {
		return nil, fmt.Errorf("mcp config: %d servers, at most %d", len(raw), MaxServers)
	}
	cfg := &Config{}
	for name, body := range raw {
		s, err := parseServer(name, body)
		if err != nil {
			return nil, err
		}
		cfg.Servers = append(cfg.Servers, s)
	}
	sort.Slice(cfg.Servers, func(i, j int) bool { return cfg.Servers[i].Name < cfg.Servers[j].Name })
	return cfg, nil
}

func parseServer(name string, body json.RawMessage) (Server, error) {
	var s Server
	if !serverNameRE.MatchString(name) {
		return s, fmt.Errorf("mcp config: server name %q: a letter, then letters, digits and -, at most 16", name)
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&s); err != nil {
		return s, fmt.Errorf("mcp config: server %q: %v", name, err)
	}
	s.Name = name
	bad := func(format string, a ...any) (Server, error) {
		return Server{}, fmt.Errorf("mcp config: server %q: "+format, append([]any{name}, a...)...)
	}
	switch {
	case s.Command == "" && s.URL == "":
		return bad("needs \"command\" (stdio) or \"url\" (Streamable HTTP)")
	case s.Command != "" && s.URL != "":
		return bad("has both \"command\" and \"url\"; give one")
	case s.Command != "" && len(s.Headers) > 0:
		return bad("\"headers\" apply to a \"url\" server only")
	case s.URL != "" && (len(s.Args) > 0 || len(s.Env) > 0):
		return bad("\"args\" and \"env\" apply to a \"command\" server only")
	case len(s.Args) > maxArgs:
		return bad("more than %d args", maxArgs)
	case len(s.Env) > maxEnv:
		return bad("more than %d env entries", maxEnv)
	case len(s.Headers) > maxHeaders:
		return bad("more than %d headers", maxHeaders)
	}
	if s.URL != "" {
		u, err := url.Parse(s.URL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return bad("url %q must be an absolute http or https URL", s.URL)
		}
	}
	for _, v := range append([]string{s.Command, s.URL}, s.Args...) {
		if len(v) > maxValueBytes {
			return bad("a value is longer than %d bytes", maxValueBytes)
		}
	}
	for k, v := range s.Env {
		if k == "" || strings.ContainsAny(k, "=\x00") || len(v) > maxValueBytes {
			return bad("env %q: a name without = and a value of at most %d bytes", k, maxValueBytes)
		}
	}
	for k, v := range s.Headers {
		if k == "" || strings.ContainsAny(k, " :\r\n\x00") || strings.ContainsAny(v, "\r\n\x00") || len(v) > maxValueBytes {
			return bad("header %q: a token name and a one-line value of at most %d bytes", k, maxValueBytes)
		}
	}
	return s, nil
}
