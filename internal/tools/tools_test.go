package tools

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/rtcagent/rtcagent/internal/llm"
	"github.com/rtcagent/rtcagent/internal/protocol"
)

func TestDecideMatrix(t *testing.T) {
	type d = Decision
	want := map[Kind]map[string]Decision{
		KindRead:   {protocol.ModeManual: d{}, protocol.ModeEdit: d{}, protocol.ModePlan: d{}, protocol.ModeBypass: d{}},
		KindAsk:    {protocol.ModeManual: d{}, protocol.ModeEdit: d{}, protocol.ModePlan: d{}, protocol.ModeBypass: d{}},
		KindWrite:  {protocol.ModeManual: d{NeedsConfirmation: true}, protocol.ModeEdit: d{}, protocol.ModePlan: d{Refused: true}, protocol.ModeBypass: d{}},
		KindScript: {protocol.ModeManual: d{NeedsConfirmation: true}, protocol.ModeEdit: d{NeedsConfirmation: true}, protocol.ModePlan: d{Refused: true}, protocol.ModeBypass: d{}},
		KindHost:   {protocol.ModeManual: d{NeedsConfirmation: true}, protocol.ModeEdit: d{NeedsConfirmation: true}, protocol.ModePlan: d{Refused: true}, protocol.ModeBypass: d{}},
	}
	for kind, modes := range want {
		for mode, w := range modes {
			if got := Decide(mode, kind); got != w {
				t.Errorf("%s in %s: %+v, want %+v", kind, mode, got, w)
			}
		}
		// An unknown mode never runs a confirmable tool without asking.
		if kind == KindWrite || kind == KindScript || kind == KindHost {
			if !Decide("yolo", kind).NeedsConfirmation {
				t.Errorf("%s in an unknown mode runs without confirmation", kind)
			}
		}
	}
}

func TestCheckCall(t *testing.T) {
	lim := protocol.Limits{ToolArgsBytes: 64}.WithDefaults()
	set := NewSet([]protocol.HostTool{{Name: "addToCart", Description: "add", Parameters: json.RawMessage(`{"type":"object"}`)}})
	cases := []struct {
		name, args, errPart string
	}{
		{"read", `{"path":"/a"}`, ""},
		{"ls", ``, ""},
		{"addToCart", `{"sku":"1"}`, ""},
		{"read", `{}`, `needs the argument "path"`},
		{"read", `{"path":`, "must be a JSON object"},
		{"read", `[1]`, "must be a JSON object"},
		{"nope", `{}`, `unknown tool "nope"`},
		{"write", `{"path":"/a","content":"` + strings.Repeat("x", 100) + `"}`, "more than the limit"},
	}
	for _, c := range cases {
		_, err := set.CheckCall(c.name, json.RawMessage(c.args), lim)
		if c.errPart == "" && err != nil || c.errPart != "" && (err == nil || !strings.Contains(err.Error(), c.errPart)) {
			t.Errorf("%s(%s): %v, want %q", c.name, c.args, err, c.errPart)
		}
	}
	if len(set.Specs()) != len(Builtins)+1 {
		t.Fatalf("%d specs", len(set.Specs()))
	}
}

func TestValidateHostTools(t *testing.T) {
	lim := protocol.Limits{}.WithDefaults()
	bad := [][]protocol.HostTool{
		{{Name: "read"}},
		{{Name: "x y"}},
		{{Name: "a"}, {Name: "a"}},
		{{Name: "a", Parameters: json.RawMessage(`"str"`)}},
		{{Name: "a", Description: strings.Repeat("d", lim.HostToolBytes+1)}},
	}
	for i, hts := range bad {
		if err := ValidateHostTools(hts, lim); err == nil {
			t.Errorf("case %d accepted", i)
		}
	}
	if err := ValidateHostTools([]protocol.HostTool{{Name: "ok_tool-1", Parameters: json.RawMessage(`{}`)}}, lim); err != nil {
		t.Fatal(err)
	}
	// A name like an MCP tool's ("<server>__<tool>") is refused with a stable
	// code and a message that says why, whether or not such a server exists.
	for _, name := range []string{"files__read", "a__", "x___y"} {
		err := ValidateHostTools([]protocol.HostTool{{Name: name}}, lim)
		var pe *protocol.Error
		if !errors.As(err, &pe) || pe.Code != protocol.CodeInvalidArgument || !strings.Contains(pe.Message, "reserved for the server's MCP tools") {
			t.Errorf("%s: %v", name, err)
		}
	}
	// The name of an MCP server's question is not a host tool's: the page
	// would take the model's call of it for a question.
	if err := ValidateHostTools([]protocol.HostTool{{Name: Elicitation}}, lim); err == nil || !strings.Contains(err.Error(), "already taken") {
		t.Errorf("%s: %v", Elicitation, err)
	}
	for _, b := range Builtins {
		var schema map[string]any
		if err := json.Unmarshal(b.Spec.Parameters, &schema); err != nil || schema["type"] != "object" {
			t.Errorf("%s schema: %v", b.Spec.Name, err)
		}
	}
}

func TestReadOnly(t *testing.T) {
	for name, want := range map[string]bool{"ls": true, "read": true, "grep": true, "find": true,
		"write": false, "edit": false, "script": false, "askUser": false, "crm_lookup": false} {
		if got := ReadOnly(name); got != want {
			t.Errorf("ReadOnly(%q) = %v, want %v", name, got, want)
		}
	}
}

func TestProtectedPaths(t *testing.T) {
	protected := []string{"/AGENT.md", "AGENT.md", "//AGENT.md", "/./AGENT.md", "/AGENT.md/", "/AGENT.md/x",
		"/.scripts", "/.scripts/", "/.scripts/fib.js", ".scripts/fib.js", "/.scripts/a/b.js", "/./.scripts//fib.js",
		"/notes/../AGENT.md", "/x/../.scripts/fib.js",
		// Paths that read as a protected one: case, a Cyrillic А, fullwidth
		// letters, an invisible filler or a blank at the end, a lookalike s.
		"/agent.md", "/\u0410GENT.md", "/\uff21\uff27\uff25\uff2e\uff34.md", "/AGENT.md\u3164", "/AGENT.md\u00a0", "/.\u0455cripts/x.js"}
	for _, p := range protected {
		if !IsProtectedPath(p) {
			t.Errorf("%q is not protected", p)
		}
	}
	open := []string{"/", "/notes.md", "/AGENT.md.bak", "/AGENT.mdx", "/.scriptsx/a.js", "/scripts/a.js", "/notes/AGENT.md", "/a/.scripts/b.js"}
	for _, p := range open {
		if IsProtectedPath(p) {
			t.Errorf("%q is protected", p)
		}
	}
}

func TestDecideCallProtected(t *testing.T) {
	type d = Decision
	args := func(path string) json.RawMessage {
		b, _ := json.Marshal(map[string]string{"path": path, "content": "x"})
		return b
	}
	want := map[string]Decision{protocol.ModeManual: d{NeedsConfirmation: true}, protocol.ModeEdit: d{NeedsConfirmation: true}, protocol.ModePlan: d{Refused: true}, protocol.ModeBypass: d{}, "yolo": d{NeedsConfirmation: true}}
	for _, path := range []string{"/AGENT.md", "/.scripts/fib.js", "AGENT.md"} {
		for mode, w := range want {
			if got := DecideCall(mode, KindWrite, args(path)); got != w {
				t.Errorf("write %s in %s: %+v, want %+v", path, mode, got, w)
			}
		}
	}
	// Elsewhere the matrix stands: edit mode writes without asking.
	if got := DecideCall(protocol.ModeEdit, KindWrite, args("/notes.md")); got != (d{}) {
		t.Errorf("write /notes.md in edit: %+v", got)
	}
	// A path the server cannot read asks.
	for _, raw := range []string{`{"path":7}`, `{}`, `[1]`} {
		if got := DecideCall(protocol.ModeEdit, KindWrite, json.RawMessage(raw)); !got.NeedsConfirmation {
			t.Errorf("write %s in edit runs without asking", raw)
		}
	}
	// Other kinds are not affected by a path argument.
	if got := DecideCall(protocol.ModeEdit, KindRead, args("/AGENT.md")); got != (d{}) {
		t.Errorf("read /AGENT.md in edit: %+v", got)
	}
}

func TestBuiltinDescriptionsNameProtectedPaths(t *testing.T) {
	for _, name := range []string{"write", "edit", "script"} {
		if !strings.Contains(builtinByName[name].Spec.Description, ProtectedPathsText) {
			t.Errorf("the %s description does not name the protected paths", name)
		}
	}
}

func TestDecideToolHostApproval(t *testing.T) {
	set := NewSet([]protocol.HostTool{
		{Name: "plain", Description: "x"},
		{Name: "always", Description: "x", Approval: protocol.ApprovalAlways},
		{Name: "never", Description: "x", Approval: protocol.ApprovalNever},
		{Name: "byArgs", Description: "x", Approval: protocol.ApprovalArguments},
	})
	type d = Decision
	cases := []struct {
		tool, mode string
		want       d
		mayAsk     bool
	}{
		{"plain", protocol.ModeEdit, d{NeedsConfirmation: true}, true},
		{"always", protocol.ModeManual, d{NeedsConfirmation: true}, true},
		{"always", protocol.ModeBypass, d{NeedsConfirmation: true}, true}, // a floor no mode lowers
		{"byArgs", protocol.ModeBypass, d{}, true},
		{"never", protocol.ModeManual, d{}, false},
		{"never", protocol.ModeEdit, d{}, false},
		{"never", protocol.ModePlan, d{Refused: true}, false},
		{"byArgs", protocol.ModeEdit, d{}, true},
		{"byArgs", protocol.ModePlan, d{Refused: true}, true},
	}
	for _, c := range cases {
		tool, ok := set.Lookup(c.tool)
		if !ok {
			t.Fatalf("no tool %s", c.tool)
		}
		got := DecideTool(c.mode, tool, json.RawMessage(`{}`))
		if got != c.want || MayAsk(got, tool) != c.mayAsk {
			t.Errorf("%s in %s: got %+v mayAsk %v, want %+v mayAsk %v", c.tool, c.mode, got, MayAsk(got, tool), c.want, c.mayAsk)
		}
	}
	err := ValidateHostTools([]protocol.HostTool{{Name: "x", Approval: "sometimes"}}, protocol.Limits{}.WithDefaults())
	if err == nil || !strings.Contains(err.Error(), "always, never or arguments") {
		t.Fatalf("a bad approval: got %v", err)
	}
}

// Server tools (MCP) are planned like host tools, or like the read-only
// built-ins when annotated read-only; a host tool cannot take a server tool's name.
func TestServerTools(t *testing.T) {
	lim := protocol.Limits{}.WithDefaults()
	srv := []Tool{
		ServerTool("files__write", "write", json.RawMessage(`{"type":"object"}`), false),
		ServerTool("files__read", "read", json.RawMessage(`{"type":"object"}`), true),
	}
	set := NewSet([]protocol.HostTool{{Name: "files__read", Description: "host"}, {Name: "cart"}}, srv...)
	if len(set.Specs()) != len(Builtins)+3 {
		t.Fatalf("%d specs", len(set.Specs()))
	}
	w, err := set.CheckCall("files__write", json.RawMessage(`{"a":1}`), lim)
	if err != nil || !w.OnServer || w.Kind != KindServer {
		t.Fatalf("write: %+v %v", w, err)
	}
	r, _ := set.CheckCall("files__read", nil, lim)
	if !r.OnServer || r.Kind != KindRead || r.Spec.Description != "read" {
		t.Fatalf("read: %+v", r)
	}
	if d := Decide(protocol.ModeEdit, KindServer); !d.NeedsConfirmation {
		t.Fatal("a server tool with effects runs without asking in edit mode")
	}
	if d := Decide(protocol.ModePlan, KindServer); !d.Refused {
		t.Fatal("a server tool with effects runs in plan mode")
	}
}

// A turn sent with host_tools_only offers its host tools and the server tools,
// no built-in; any other turn offers the built-ins first.
func TestForTurnLeavesOutBuiltins(t *testing.T) {
	host := []protocol.HostTool{{Name: "add", Parameters: json.RawMessage(`{"type":"object"}`)}}
	server := Tool{Kind: KindServer, Spec: llm.ToolSpec{Name: "srv__x", Parameters: json.RawMessage(`{"type":"object"}`)}}
	names := func(s *Set) (out []string) {
		for _, sp := range s.Specs() {
			out = append(out, sp.Name)
		}
		return out
	}
	if got := names(ForTurn(&protocol.Turn{Tools: host, HostToolsOnly: true}, server)); len(got) != 2 || got[0] != "srv__x" || got[1] != "add" {
		t.Fatalf("host only: %v", got)
	}
	got := names(ForTurn(&protocol.Turn{Tools: host}, server))
	if len(got) != len(Builtins)+2 || got[0] != Builtins[0].Spec.Name || got[len(got)-1] != "add" {
		t.Fatalf("default: %v", got)
	}
	// A turn with neither host nor server tools gets the built-ins alone.
	got = names(ForTurn(&protocol.Turn{}))
	if len(got) != len(Builtins) || got[0] != Builtins[0].Spec.Name || got[len(got)-1] != Builtins[len(Builtins)-1].Spec.Name {
		t.Fatalf("built-ins only: %v", got)
	}
	if _, ok := ForTurn(&protocol.Turn{}).Lookup("add"); ok {
		t.Fatal("a host tool of another turn is offered")
	}
}

// A path a person may misread is never covered by "Allow for this chat": too
// long, a word mixing scripts, characters that show as nothing or as a space.
// Ordinary names in one script (or Latin with Han and kana) are not flagged.
func TestMisleadingPaths(t *testing.T) {
	misleading := []string{"/" + strings.Repeat("a", 675), "/notes" + strings.Repeat("\u00a0", 3874) + ".md", "/notes/todo.md\u3164",
		"/p\u0430yroll.csv", "/notes/todo.md ", "/\u2800.md", "/a\u200bb.md"}
	for _, p := range misleading {
		if !MisleadingPath(p) {
			t.Errorf("%q is not misleading", p)
		}
		args, _ := json.Marshal(map[string]string{"path": p, "content": "x"})
		if AllowableForChat("write", args) {
			t.Errorf("allow for this chat covers a write of %q", p)
		}
	}
	plain := []string{"/notes/todo.md", "/\u043e\u0442\u0447\u0451\u0442.pdf", "/\u65e5\u672c\u8a9e\u306e\u30e1\u30e2.txt", "/caf\u00e9 menu.md", "/\u03b1\u03b2\u03b3.txt"}
	for _, p := range plain {
		if MisleadingPath(p) {
			t.Errorf("%q is misleading", p)
		}
	}
}
