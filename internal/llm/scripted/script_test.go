package scripted

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rtcagent/rtcagent/internal/llm"
)

func TestValidation(t *testing.T) {
	bad := map[string]string{
		"no turns":         `{"name": "x", "turns": []}`,
		"bad regexp":       `{"name": "x", "turns": [{"match": "(", "steps": [{"text": "a"}]}]}`,
		"no steps":         `{"name": "x", "turns": [{"steps": []}]}`,
		"unnamed tool":     `{"name": "x", "turns": [{"steps": [{"tool_calls": [{"arguments": {}}]}]}]}`,
		"both arguments":   `{"name": "x", "turns": [{"steps": [{"tool_calls": [{"name": "a", "arguments": {}, "raw_arguments": "{}"}]}]}]}`,
		"unknown category": `{"name": "x", "turns": [{"steps": [{"error": {"category": "oops"}}]}]}`,
		"negative delay":   `{"name": "x", "turns": [{"steps": [{"text": "a", "delay_ms": -1}]}]}`,
		"unknown field":    `{"name": "x", "turns": [{"steps": [{"txt": "a"}]}]}`,
		"trailing data":    `{"name": "x", "turns": [{"steps": [{"text": "a"}]}]} {}`,
		"not json":         `turns:`,
	}
	for name, js := range bad {
		if _, err := Parse([]byte(js)); err == nil {
			t.Errorf("%s: Parse accepted %s", name, js)
		}
	}
	if _, err := New(Script{Name: "x", Turns: []Turn{{Steps: []Step{{ToolCalls: []ToolCall{{Name: "a", Arguments: []byte("{")}}}}}}}); err == nil {
		t.Error("New accepted invalid JSON arguments")
	}
}

func TestLoad(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.json")
	if err := os.WriteFile(path, []byte(`{"name": "file", "turns": [{"steps": [{"text": "from file"}]}]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	m, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if m.Name() != "scripted:file" || drain(t, m, &llm.Request{Messages: []llm.Message{user("x")}}).text() != "from file" {
		t.Fatal("loaded script does not drive the model")
	}
	if _, err := Load(filepath.Join(t.TempDir(), "missing.json")); err == nil {
		t.Fatal("Load of a missing file succeeded")
	}
}

func FuzzParse(f *testing.F) {
	f.Add([]byte(selectionScript))
	f.Add(DemoJSON())
	f.Add([]byte(`{"name": "x", "turns": [{"steps": [{"chunks": ["{{user}}"], "tool_calls": [{"name": "a", "raw_arguments": "{"}]}]}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		parsed, err := Parse(data)
		if err != nil {
			return
		}
		// Delays are honoured for real; a fuzzed delay_ms would stall the fuzzer.
		script := parsed.Script()
		for i := range script.Turns {
			for j := range script.Turns[i].Steps {
				script.Turns[i].Steps[j].DelayMS = 0
			}
		}
		m, err := New(script)
		if err != nil {
			t.Fatalf("a parsed script fails validation: %v", err)
		}
		// Any accepted script must answer any transcript without panicking, and
		// the text of a step must survive splitting.
		for _, msgs := range [][]llm.Message{nil, {user("hello")}, {user("a"), assistant("b"), tool("c", "d")}} {
			r := drain(t, m, &llm.Request{Messages: msgs})
			if r.err == nil && len(r.usage) != 1 {
				t.Fatalf("successful step without exactly one usage event: %+v", r)
			}
		}
		for _, turn := range m.Script().Turns {
			for _, st := range turn.Steps {
				if got := strings.Join(splitWords(st.Text), ""); got != st.Text {
					t.Fatalf("split(%q) joins to %q", st.Text, got)
				}
			}
		}
	})
}
