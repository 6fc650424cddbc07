package mcptools

import (
	"strings"
	"testing"
)

func TestParseConfig(t *testing.T) {
	cfg, err := ParseConfig([]byte(`{"servers": {
		"search": {"url": "https://example.com/mcp", "headers": {"Authorization": "Bearer x"}},
		"files": {"command": "mcp-files", "args": ["/srv"], "env": {"ROOT": "/srv"}}}}`))
	if err != nil {
		t.Fatal(err)
	}
	if len(cfg.Servers) != 2 || cfg.Servers[0].Name != "files" || cfg.Servers[1].Headers["Authorization"] != "Bearer x" {
		t.Fatalf("%+v", cfg.Servers)
	}
	if _, err := ParseConfig([]byte(`{"mcpServers": {"a": {"command": "x"}}}`)); err != nil {
		t.Fatalf("mcpServers: %v", err)
	}
	many := `{"servers": {`
	for i := 0; i <= MaxServers; i++ {
		if i > 0 {
			many += ","
		}
		many += `"s` + strings.Repeat("x", i%10) + string(rune('a'+i)) + `": {"command": "x"}`
	}
	many += `}}`
	cases := []struct{ doc, want string }{
		{`[]`, "not a JSON object"},
		{`{}`, "no servers"},
		{`{"servers": {}, "mcpServers": {}}`, "either"},
		{`{"servers": {"a__b": {"command": "x"}}}`, `server name "a__b"`},
		{`{"servers": {"a": {}}}`, `server "a": needs "command"`},
		{`{"servers": {"a": {"command": "x", "url": "http://h/"}}}`, "both"},
		{`{"servers": {"a": {"command": "x", "headers": {"A": "b"}}}}`, `"headers" apply`},
		{`{"servers": {"a": {"url": "http://h/", "args": ["x"]}}}`, `"args" and "env"`},
		{`{"servers": {"a": {"url": "ftp://h/"}}}`, "absolute http"},
		{`{"servers": {"a": {"url": "http://h/", "headers": {"A": "b\nc"}}}}`, `header "A"`},
		{`{"servers": {"a": {"command": "x", "env": {"A=B": "c"}}}}`, `env "A=B"`},
		{`{"servers": {"a": {"command": "x", "cmd": "y"}}}`, `unknown field "cmd"`},
		{many, "at most 16"},
	}
	for _, c := range cases {
		_, err := ParseConfig([]byte(c.doc))
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), "mcp config") {
			t.Errorf("%s: %v, want %q", c.doc, err, c.want)
		}
	}
}
