package tools_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/rtcagent/rtcagent/internal/testkit/mcptest"
	"github.com/rtcagent/rtcagent/internal/tools"
)

// Every kind of field the MCP specification allows in a form becomes one
// field, in the order the server wrote them, with its title, constraints,
// choices (plain, legacy enumNames, titled oneOf and anyOf), default and
// whether it is required.
func TestElicitFormReadsEveryKind(t *testing.T) {
	a, err := tools.NewElicitForm("test", "Your profile", json.RawMessage(mcptest.ProfileSchema), nil)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range a.Fields {
		s := f.Name + ":" + f.Kind
		if f.Format != "" {
			s += "/" + f.Format
		}
		if f.Required {
			s += "!"
		}
		for _, o := range f.Options {
			s += " " + o.Value + "=" + o.Title
		}
		got = append(got, s)
	}
	want := []string{"name:text!", "email:text/email!", "site:text/uri", "born:text/date", "meet:text/date-time", "age:integer!",
		"height:number", "news:boolean", "size:choice! S= M= L=", "plan:choice free=Free pro=Professional",
		"colour:choice r=Red g=Green", "langs:choices go= ts= rust=", "days:choices mon=Monday fri=Friday"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("fields:\n%s", strings.Join(got, "\n"))
	}
	if f := a.Fields[0]; *f.MinLength != 2 || *f.MaxLength != 60 || f.Title != "Full name" {
		t.Fatalf("name: %+v", f)
	}
	if f := a.Fields[5]; *f.Minimum != 18 || *f.Maximum != 130 {
		t.Fatalf("age: %+v", f)
	}
	if f := a.Fields[9]; string(f.Default) != `"free"` {
		t.Fatalf("plan's default: %s", f.Default)
	}
	if f := a.Fields[11]; *f.MinItems != 1 {
		t.Fatalf("langs: %+v", f)
	}
}

// A schema the form cannot show is an error that says why.
func TestElicitFormRefusesWhatItCannotShow(t *testing.T) {
	many := `{"type":"object","properties":{`
	for i := range tools.MaxFormFields + 1 {
		many += fmt.Sprintf(`%s"f%d":{"type":"string"}`, map[bool]string{true: "", false: ","}[i == 0], i)
	}
	many += `}}`
	for schema, why := range map[string]string{
		`[]`:                "not a JSON object",
		`{"type":"object"}`: "not an object with properties",
		`{"type":"object","properties":{"a":{"type":"object"}}}`:                          `type "object"`,
		`{"type":"object","properties":{"a":{"type":"string","format":"ipv4"}}}`:          `format "ipv4"`,
		`{"type":"object","properties":{"a":{"type":"string","enum":[1,2]}}}`:             "not a string",
		`{"type":"object","properties":{"a":{"type":"array","items":{"type":"string"}}}}`: "without choices",
		many: "at most 64",
	} {
		if _, err := tools.NewElicitForm("s", "m", json.RawMessage(schema), nil); err == nil || !strings.Contains(err.Error(), why) {
			t.Errorf("%.60s: %v, want %q", schema, err, why)
		}
	}
}

// A link is shown only when it is http or https without credentials.
func TestElicitURL(t *testing.T) {
	if a, err := tools.NewElicitURL("s", "Sign in", "https://example.com/auth?state=1"); err != nil || a.Mode != tools.ElicitURL || a.URL != "https://example.com/auth?state=1" {
		t.Fatalf("%+v %v", a, err)
	}
	for _, bad := range []string{"javascript:alert(1)", "data:text/html,x", "https://user:pw@example.com/", "/relative", "https://" + strings.Repeat("a", tools.MaxURLBytes)} {
		if _, err := tools.NewElicitURL("s", "m", bad); err == nil {
			t.Errorf("%.40s accepted", bad)
		}
	}
}

// An accepted answer fits the schema and each text its format; a decline or
// cancel carries no content.
func TestCheckElicitAnswer(t *testing.T) {
	a, err := tools.NewElicitForm("test", "Your profile", json.RawMessage(mcptest.ProfileSchema), nil)
	if err != nil {
		t.Fatal(err)
	}
	args := a.JSON()
	good := map[string]any{"name": "Ada", "email": "ada@example.com", "site": "https://example.com", "born": "1990-12-10",
		"meet": "2026-12-05T10:00:00Z", "age": 36, "height": 1.7, "news": true, "size": "M", "plan": "pro", "colour": "g",
		"langs": []string{"go", "ts"}, "days": []string{"fri"}}
	answer := func(change func(map[string]any)) json.RawMessage {
		c := map[string]any{}
		for k, v := range good {
			c[k] = v
		}
		change(c)
		b, _ := json.Marshal(tools.ElicitAnswer{Action: "accept", Content: c})
		return b
	}
	if ans, err := tools.CheckElicitAnswer(args, answer(func(map[string]any) {})); err != nil || ans.Content["name"] != "Ada" {
		t.Fatalf("a fitting answer: %+v %v", ans, err)
	}
	for name, change := range map[string]func(map[string]any){
		"missing required": func(c map[string]any) { delete(c, "email") },
		"bad email":        func(c map[string]any) { c["email"] = "ada at example" },
		"bad date":         func(c map[string]any) { c["born"] = "10/12/1990" },
		"bad date-time":    func(c map[string]any) { c["meet"] = "tomorrow" },
		"bad uri":          func(c map[string]any) { c["site"] = "example dot com" },
		"too young":        func(c map[string]any) { c["age"] = 12 },
		"not an integer":   func(c map[string]any) { c["age"] = 36.5 },
		"too short":        func(c map[string]any) { c["name"] = "A" },
		"unknown choice":   func(c map[string]any) { c["size"] = "XL" },
		"unknown title":    func(c map[string]any) { c["plan"] = "Professional" },
		"no language":      func(c map[string]any) { c["langs"] = []string{} },
		"unknown day":      func(c map[string]any) { c["days"] = []string{"sun"} },
	} {
		if _, err := tools.CheckElicitAnswer(args, answer(change)); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	if ans, err := tools.CheckElicitAnswer(args, json.RawMessage(`{"action":"decline","content":{"x":1}}`)); err != nil || ans.Content != nil {
		t.Fatalf("a decline: %+v %v", ans, err)
	}
}
