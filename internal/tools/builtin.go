package tools

import (
	"encoding/json"

	"github.com/rtcagent/rtcagent/internal/llm"
)

// Kind classifies a tool for the permission matrix.
type Kind string

const (
	KindRead   Kind = "read"   // ls, read, grep, find
	KindWrite  Kind = "write"  // write, edit
	KindScript Kind = "script" // script
	KindAsk    Kind = "ask"    // askUser
	KindHost   Kind = "host"   // registered by the host page
	KindServer Kind = "server" // a tool of an MCP server, executed by this server
)

// Tool is one tool offered to the model.
type Tool struct {
	Kind     Kind
	Spec     llm.ToolSpec
	Required []string // top-level fields the arguments must have
	// Approval is a host tool's needsApproval (protocol.Approval*); "" as the mode says.
	Approval string
	// OnServer: the server executes the call (a tool of an MCP server). Its Kind
	// is KindServer, or KindRead for a tool annotated read-only.
	OnServer bool
	// App is the path of the tool's view on this server (an MCP App), "" for none.
	App string
}

func builtin(kind Kind, name, desc, schema string, required ...string) Tool {
	return Tool{Kind: kind, Spec: llm.ToolSpec{Name: name, Description: desc, Parameters: json.RawMessage(schema)}, Required: required}
}

// protectedNote tells the model which paths always ask (see ProtectedPaths).
const protectedNote = "Writing " + ProtectedPathsText + " (the site's instructions and the saved scripts) asks the user first in every work mode except bypass."

// Builtins are the eight browser tools, in the order they are offered.
var Builtins = []Tool{
	builtin(KindRead, "ls", "List a directory of the user's virtual file system. Directories end with '/'.",
		`{"type":"object","properties":{"path":{"type":"string","description":"Absolute directory path; default /"}}}`),
	builtin(KindRead, "read", "Read a text file with numbered lines. Use offset and limit to page through long files.",
		`{"type":"object","properties":{"path":{"type":"string"},"offset":{"type":"integer","minimum":1,"description":"First line, 1-based"},"limit":{"type":"integer","minimum":1,"description":"Number of lines; default 2000"}},"required":["path"]}`, "path"),
	builtin(KindWrite, "write", "Create a file or overwrite it completely. For partial changes use edit. "+protectedNote,
		`{"type":"object","properties":{"path":{"type":"string"},"content":{"type":"string"}},"required":["path","content"]}`, "path", "content"),
	builtin(KindWrite, "edit", "Replace an exact string in a file. old_string must occur exactly once unless replace_all is true. "+protectedNote,
		`{"type":"object","properties":{"path":{"type":"string"},"old_string":{"type":"string"},"new_string":{"type":"string"},"replace_all":{"type":"boolean"}},"required":["path","old_string","new_string"]}`, "path", "old_string", "new_string"),
	builtin(KindRead, "grep", "Search file contents with a regular expression in RE2 syntax (as ripgrep uses: no backreferences or lookaround). Returns path:line: text matches.",
		`{"type":"object","properties":{"pattern":{"type":"string","description":"RE2 regular expression, e.g. TODO|FIXME or (?i)error"},"path":{"type":"string","description":"File or directory; default /"}},"required":["pattern"]}`, "pattern"),
	builtin(KindRead, "find", "Find files whose path matches a glob pattern (*, **, ?, [abc]).",
		`{"type":"object","properties":{"pattern":{"type":"string"},"path":{"type":"string","description":"Directory to search; default /"}},"required":["pattern"]}`, "pattern"),
	builtin(KindScript, "script", "Run JavaScript in a sandbox in the user's browser. action eval runs code; save stores it under a name; run runs a saved script. The script sees params, console, rtcAgent.fs and the host's functions; no network, no DOM. Saved scripts live in /.scripts/<name>.js, a protected path ("+ProtectedPathsText+" ask the user in every work mode except bypass). The user approves run after seeing the saved code, and only that code runs. Each host function the script calls with rtcAgent.call asks the user where a direct call of that host tool would; a refused call throws a PermissionError. Returns result, logs, errors and duration.",
		`{"type":"object","properties":{"action":{"type":"string","enum":["save","run","eval"]},"code":{"type":"string"},"name":{"type":"string"},"params":{"type":"object"}},"required":["action"]}`, "action"),
	builtin(KindAsk, "askUser", "Ask the user 1-4 multiple-choice questions and wait for the answers. The user may also answer in free text.",
		`{"type":"object","properties":{"questions":{"type":"array","minItems":1,"maxItems":4,"items":{"type":"object","properties":{"question":{"type":"string"},"header":{"type":"string"},"options":{"type":"array","minItems":2,"maxItems":4,"items":{"type":"object","properties":{"label":{"type":"string"},"description":{"type":"string"}},"required":["label"]}},"multiSelect":{"type":"boolean"}},"required":["question","options"]}}},"required":["questions"]}`, "questions"),
}

var builtinByName = func() map[string]Tool {
	m := make(map[string]Tool, len(Builtins))
	for _, t := range Builtins {
		m[t.Spec.Name] = t
	}
	return m
}()

// ReadOnly reports a built-in that only reads the file system (ls, read, grep,
// find). Running one has no effect, so the browser runs it without reporting
// executing first: its RTC goes from pending straight to its result, one write and
// one client RPC fewer.
func ReadOnly(name string) bool {
	t, ok := builtinByName[name]
	return ok && t.Kind == KindRead
}

// IsBuiltin reports whether name is one of the eight built-in tools.
func IsBuiltin(name string) bool {
	_, ok := builtinByName[name]
	return ok
}
