package mcptools

import (
	"encoding/json"
	"fmt"
	"regexp"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/rtcagent/rtcagent/internal/protocol"
	"github.com/rtcagent/rtcagent/internal/tools"
)

// Separator joins a server's name and its tool's name in the name the model
// sees; host tools may not use it in their names.
const Separator = tools.ServerToolSeparator

var toolNameRE = regexp.MustCompile(`^[A-Za-z0-9_-]+$`)

// Tool is one tool of an MCP server as offered to the model.
type Tool struct {
	Name        string          // "<server>__<tool>", what the model calls
	Server      string          // the server's name in the config
	Remote      string          // the tool's name at the server
	Description string          // as the server gave it
	InputSchema json.RawMessage // as the server gave it (a JSON Schema object)
	ReadOnly    bool            // annotated readOnlyHint: it changes nothing
	Idempotent  bool            // annotated idempotentHint: running it again changes nothing more
	App         string          // the path of its view on this server (AppPath), "" for none
	// ForModel: the model is offered the tool; ForView: a view of its server
	// may call it (`_meta.ui.visibility`, both by default).
	ForModel, ForView bool
	// Task: a call runs as an MCP task (task.go), which a restart of this
	// server does not cut off.
	Task bool
}

// Rerunnable reports whether running the tool's call a second time is harmless.
func (t Tool) Rerunnable() bool { return t.ReadOnly || t.Idempotent }

// offer turns a listed tool into the tool the model sees, or explains why it
// cannot be offered.
func offer(server string, t *mcp.Tool) (Tool, error) {
	name := server + Separator + t.Name
	if !toolNameRE.MatchString(t.Name) || len(name) > maxToolNameSize {
		// The name is the server's and of any size: the log gets a bounded prefix.
		return Tool{}, fmt.Errorf("tool name %q: letters, digits, _ and -, and the name with the server's prefix at most %d characters",
			protocol.Cut(t.Name, 2*maxToolNameSize), maxToolNameSize)
	}
	schema, err := json.Marshal(t.InputSchema)
	if err != nil || t.InputSchema == nil {
		return Tool{}, fmt.Errorf("tool %q: no input schema", t.Name)
	}
	var obj map[string]json.RawMessage
	if json.Unmarshal(schema, &obj) != nil || obj == nil {
		return Tool{}, fmt.Errorf("tool %q: the input schema is not a JSON object", t.Name)
	}
	if len(schema)+len(t.Description) > MaxToolBytes {
		return Tool{}, fmt.Errorf("tool %q: description and schema are %d bytes, more than %d", t.Name, len(schema)+len(t.Description), MaxToolBytes)
	}
	out := Tool{Name: name, Server: server, Remote: t.Name, Description: t.Description, InputSchema: schema}
	if a := t.Annotations; a != nil {
		out.ReadOnly, out.Idempotent = a.ReadOnlyHint, a.IdempotentHint
	}
	return out, nil
}
