package scripted

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/rtcagent/rtcagent/internal/llm"
)

// field says what a browser tool argument must be.
type field struct {
	kind     string // "string", "number", "bool", "array", "object"
	required bool
}

// browserTools are the argument shapes of PROTOCOL.md's built-in tools.
var browserTools = map[string]map[string]field{
	"ls":      {"path": {"string", false}},
	"read":    {"path": {"string", true}, "offset": {"number", false}, "limit": {"number", false}},
	"write":   {"path": {"string", true}, "content": {"string", true}},
	"edit":    {"path": {"string", true}, "old_string": {"string", true}, "new_string": {"string", true}, "replace_all": {"bool", false}},
	"grep":    {"pattern": {"string", true}, "path": {"string", false}},
	"find":    {"pattern": {"string", true}, "path": {"string", false}},
	"script":  {"action": {"string", true}, "code": {"string", false}, "name": {"string", false}, "params": {"object", false}},
	"askUser": {"questions": {"array", true}},
}

func kindOf(v any) string {
	switch v.(type) {
	case string:
		return "string"
	case float64:
		return "number"
	case bool:
		return "bool"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return "null"
}

func checkFields(obj map[string]any, spec map[string]field) error {
	for k, v := range obj {
		f, ok := spec[k]
		if !ok {
			return fmt.Errorf("unknown argument %q", k)
		}
		if kindOf(v) != f.kind {
			return fmt.Errorf("argument %q is %s, want %s", k, kindOf(v), f.kind)
		}
	}
	for k, f := range spec {
		if _, ok := obj[k]; f.required && !ok {
			return fmt.Errorf("missing argument %q", k)
		}
	}
	return nil
}

func validateBrowserCall(c llm.ToolCall) error {
	spec, ok := browserTools[c.Name]
	if !ok {
		return fmt.Errorf("unknown tool %q", c.Name)
	}
	var args map[string]any
	if err := json.Unmarshal(c.Arguments, &args); err != nil {
		return fmt.Errorf("arguments are not a JSON object: %w", err)
	}
	if err := checkFields(args, spec); err != nil {
		return err
	}
	switch c.Name {
	case "script":
		switch args["action"] {
		case "eval", "run":
			if args["action"] == "eval" && args["code"] == nil || args["action"] == "run" && args["name"] == nil {
				return fmt.Errorf("script %s without its code or name", args["action"])
			}
		case "save":
			if args["code"] == nil || args["name"] == nil {
				return fmt.Errorf("script save needs code and name")
			}
		default:
			return fmt.Errorf("script action %v", args["action"])
		}
	case "askUser":
		return validateQuestions(args["questions"].([]any))
	}
	return nil
}

func validateQuestions(qs []any) error {
	if len(qs) < 1 || len(qs) > 4 {
		return fmt.Errorf("%d questions, want 1-4", len(qs))
	}
	for _, q := range qs {
		qm, ok := q.(map[string]any)
		if !ok {
			return fmt.Errorf("question is not an object")
		}
		if err := checkFields(qm, map[string]field{
			"question": {"string", true}, "header": {"string", false},
			"options": {"array", true}, "multiSelect": {"bool", false},
		}); err != nil {
			return err
		}
		opts := qm["options"].([]any)
		if len(opts) < 2 || len(opts) > 4 {
			return fmt.Errorf("%d options, want 2-4", len(opts))
		}
		for _, o := range opts {
			om, ok := o.(map[string]any)
			if !ok {
				return fmt.Errorf("option is not an object")
			}
			if err := checkFields(om, map[string]field{"label": {"string", true}, "description": {"string", false}}); err != nil {
				return err
			}
		}
	}
	return nil
}

func TestDefaultDemo(t *testing.T) {
	m := Default()
	if m.Name() != "scripted:demo" {
		t.Fatalf("Name = %q", m.Name())
	}
	triggers := map[string]string{
		"Can you ask me a question?":           "askUser",
		"Please compute something":             "script",
		"Edit a file and search for things":    "write",
		"hello":                                "write",
		"What is this?":                        "write",
		"Let me choose a theme":                "askUser",
		"calculate 2+2 for me":                 "script",
		"find all markdown files in my notes!": "write",
	}
	used := map[string]bool{}
	for trigger, firstTool := range triggers {
		msgs := []llm.Message{user(trigger)}
		var final result
		for step := 0; ; step++ {
			r := drain(t, m, &llm.Request{Messages: msgs})
			if r.err != nil {
				t.Fatalf("%q step %d: %v", trigger, step, r.err)
			}
			if step == 0 && (len(r.calls) == 0 || r.calls[0].Name != firstTool) {
				t.Fatalf("%q: first step calls %+v, want %s first", trigger, r.calls, firstTool)
			}
			if len(r.calls) == 0 {
				final = r
				break
			}
			if step > 10 {
				t.Fatalf("%q: script does not end", trigger)
			}
			msgs = append(msgs, llm.Message{Role: llm.RoleAssistant, Text: r.text(), ToolCalls: r.calls})
			for _, c := range r.calls {
				if err := validateBrowserCall(c); err != nil {
					t.Errorf("%q step %d: %s %s: %v", trigger, step, c.Name, c.Arguments, err)
				}
				used[c.Name] = true
				msgs = append(msgs, tool(c.ID, "RESULT OF "+c.ID))
			}
		}
		text := final.text()
		lastCall := msgs[len(msgs)-1].ToolCallID
		for _, want := range []string{"RESULT OF " + lastCall, "scripted demo model", "RTCAGENT_OPENAI_API_KEY", "RTCAGENT_ANTHROPIC_API_KEY", "README"} {
			if !strings.Contains(text, want) {
				t.Errorf("%q: final answer lacks %q:\n%s", trigger, want, text)
			}
		}
		if text == EndOfScript {
			t.Errorf("%q: ran past the script", trigger)
		}
	}
	for name := range browserTools {
		if !used[name] {
			t.Errorf("the demo never shows the %s tool", name)
		}
	}
}

func TestValidatorRejectsBadShapes(t *testing.T) {
	bad := []llm.ToolCall{
		{Name: "write", Arguments: []byte(`{"path": "/a"}`)},
		{Name: "read", Arguments: []byte(`{"path": 1}`)},
		{Name: "ls", Arguments: []byte(`{"dir": "/"}`)},
		{Name: "script", Arguments: []byte(`{"action": "eval"}`)},
		{Name: "askUser", Arguments: []byte(`{"questions": [{"question": "q", "options": [{"label": "one"}]}]}`)},
		{Name: "nope", Arguments: []byte(`{}`)},
		{Name: "ls", Arguments: []byte(`{`)},
	}
	for _, c := range bad {
		if validateBrowserCall(c) == nil {
			t.Errorf("validator accepted %s %s", c.Name, c.Arguments)
		}
	}
}

// The demo shows what real models write: links in every form, a table and code
// in three languages, in one streamed answer without tool calls.
func TestDemoFormatting(t *testing.T) {
	r := drain(t, Default(), &llm.Request{Messages: []llm.Message{user("Show me some formatting")}})
	if r.err != nil || len(r.calls) != 0 {
		t.Fatalf("err %v, calls %+v", r.err, r.calls)
	}
	text := r.text()
	for _, want := range []string{
		" https://example.com,",                                    // bare URL
		"<https://www.rfc-editor.org/rfc/rfc3986>",                 // autolink
		"[Markdown link](https://commonmark.org/help/)",            // Markdown link
		"https://en.wikipedia.org/wiki/Markdown_(disambiguation) ", // parentheses
		"support@example.com",
		"|----------|--------|---------------:|",
		"```python\n", "```go\n", "```ts\n",
		"scripted demo model", "RTCAGENT_OPENAI_API_KEY",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("the formatting answer lacks %q", want)
		}
	}
}

// The demo drives the React example shop (examples/shop): it lists the products,
// adds two mugs to the cart and checks out, one call per step, with the
// arguments the shop's tools accept; the answer quotes the checkout's result.
func TestDemoShop(t *testing.T) {
	m := Default()
	msgs := []llm.Message{user("Buy me a mug from the shop")}
	var names []string
	for step := 0; ; step++ {
		r := drain(t, m, &llm.Request{Messages: msgs})
		if r.err != nil {
			t.Fatalf("step %d: %v", step, r.err)
		}
		if len(r.calls) == 0 {
			for _, want := range []string{"RESULT OF checkout", "scripted demo model", "RTCAGENT_OPENAI_API_KEY"} {
				if !strings.Contains(r.text(), want) {
					t.Errorf("the answer lacks %q:\n%s", want, r.text())
				}
			}
			break
		}
		if step > 5 {
			t.Fatal("the shop script does not end")
		}
		msgs = append(msgs, llm.Message{Role: llm.RoleAssistant, Text: r.text(), ToolCalls: r.calls})
		for _, c := range r.calls {
			names = append(names, c.Name)
			if c.Name == "addToCart" {
				var args struct {
					ProductID string `json:"productId"`
					Quantity  int    `json:"quantity"`
				}
				if err := json.Unmarshal(c.Arguments, &args); err != nil || args.ProductID != "mug" || args.Quantity != 2 {
					t.Errorf("addToCart arguments %s", c.Arguments)
				}
			}
			msgs = append(msgs, tool(c.ID, "RESULT OF "+c.Name))
		}
	}
	if got := strings.Join(names, ","); got != "listProducts,addToCart,checkout" {
		t.Errorf("calls %s, want listProducts,addToCart,checkout", got)
	}
}
