package tools

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"

	"github.com/rtcagent/rtcagent/internal/llm"
	"github.com/rtcagent/rtcagent/internal/protocol"
)

var hostNameRE = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_\-]{0,63}$`)

// ServerToolSeparator joins an MCP server's name and its tool's name in the name
// the model sees ("<server>__<tool>"). A host tool's name may not contain it, so
// a host tool and a tool of the server never share a name, whatever MCP servers
// a server has or connects later.
const ServerToolSeparator = "__"

// ValidateHostTools checks host tool definitions sent with a message.
func ValidateHostTools(hts []protocol.HostTool, lim protocol.Limits) error {
	if len(hts) > lim.HostTools {
		return protocol.Errorf(protocol.CodeTooLarge, "at most %d host tools", lim.HostTools)
	}
	seen := map[string]bool{}
	for i, ht := range hts {
		if !hostNameRE.MatchString(ht.Name) {
			return protocol.Errorf(protocol.CodeInvalidArgument, "tools[%d].name %q: letters, digits, _ and -, starting with a letter, at most 64", i, ht.Name)
		}
		if strings.Contains(ht.Name, ServerToolSeparator) {
			return protocol.Errorf(protocol.CodeInvalidArgument, "tools[%d].name %q: names with %q are reserved for the server's MCP tools (<server>%s<tool>)", i, ht.Name, ServerToolSeparator, ServerToolSeparator)
		}
		if IsBuiltin(ht.Name) || ht.Name == Elicitation || seen[ht.Name] {
			return protocol.Errorf(protocol.CodeInvalidArgument, "tools[%d].name %q is already taken", i, ht.Name)
		}
		seen[ht.Name] = true
		if len(ht.Description)+len(ht.Parameters) > lim.HostToolBytes {
			return protocol.Errorf(protocol.CodeTooLarge, "tools[%d] is larger than %d bytes", i, lim.HostToolBytes)
		}
		switch ht.Approval {
		case "", protocol.ApprovalAlways, protocol.ApprovalNever, protocol.ApprovalArguments:
		default:
			return protocol.Errorf(protocol.CodeInvalidArgument, "tools[%d].approval %q: always, never or arguments", i, ht.Approval)
		}
		if len(ht.Parameters) > 0 && !isJSONObject(ht.Parameters) {
			return protocol.Errorf(protocol.CodeInvalidArgument, "tools[%d].parameters must be a JSON Schema object", i)
		}
	}
	return nil
}

// Set is the tools offered in one turn: the built-ins, the tools of the
// server's MCP servers and the host's tools. A Set is never changed once
// built, so turns share one.
type Set struct {
	byName map[string]Tool
	specs  []llm.ToolSpec
}

// NewSet builds the tool set of a turn. Host tools must have been validated
// (ValidateHostTools refuses names with ServerToolSeparator, so none is named
// like a server tool); should one be, the server's tool keeps its name.
func NewSet(host []protocol.HostTool, server ...Tool) *Set {
	return newSet(Builtins, host, server)
}

// ForTurn builds the tool set of turn t: the built-in browser tools unless the
// turn offers only host tools, the server tools, and the turn's host tools.
func ForTurn(t *protocol.Turn, server ...Tool) *Set {
	switch {
	case t.HostToolsOnly:
		return newSet(nil, t.Tools, server)
	case len(t.Tools) == 0 && len(server) == 0:
		return builtinSet
	}
	return newSet(Builtins, t.Tools, server)
}

// builtinSet is the set of a turn without host or server tools.
var builtinSet = newSet(Builtins, nil, nil)

func newSet(builtins []Tool, host []protocol.HostTool, server []Tool) *Set {
	s := &Set{byName: make(map[string]Tool, len(builtins)+len(host)+len(server))}
	for _, t := range builtins {
		s.add(t)
	}
	for _, t := range server {
		if _, taken := s.byName[t.Spec.Name]; !taken {
			s.add(t)
		}
	}
	for _, ht := range host {
		if _, taken := s.byName[ht.Name]; taken {
			continue
		}
		params := ht.Parameters
		if len(params) == 0 {
			params = json.RawMessage(`{"type":"object","properties":{}}`)
		}
		s.add(Tool{Kind: KindHost, Spec: llm.ToolSpec{Name: ht.Name, Description: ht.Description, Parameters: params}, Approval: ht.Approval})
	}
	return s
}

func (s *Set) add(t Tool) {
	s.byName[t.Spec.Name] = t
	s.specs = append(s.specs, t.Spec)
}

// Specs returns the tool specs for the model request.
func (s *Set) Specs() []llm.ToolSpec { return s.specs }

// Lookup returns the tool named name.
func (s *Set) Lookup(name string) (Tool, bool) {
	t, ok := s.byName[name]
	return t, ok
}

// CheckCall validates a tool call of the model before it becomes an RTC. The error
// text is written for the model, so it can correct the call.
func (s *Set) CheckCall(name string, args json.RawMessage, lim protocol.Limits) (Tool, error) {
	t, ok := s.byName[name]
	if !ok {
		return t, fmt.Errorf("unknown tool %q; available tools: %s", name, s.names())
	}
	if len(args) > lim.ToolArgsBytes {
		return t, ArgsTooLarge(name, len(args), lim.ToolArgsBytes)
	}
	trimmed := bytes.TrimSpace(args)
	if len(trimmed) == 0 {
		trimmed = []byte("{}")
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(trimmed, &obj); err != nil || obj == nil {
		return t, fmt.Errorf("arguments of %s must be a JSON object: %s", name, describeJSONError(err))
	}
	for _, f := range t.Required {
		if _, ok := obj[f]; !ok {
			return t, fmt.Errorf("%s needs the argument %q", name, f)
		}
	}
	return t, nil
}

// ArgsTooLarge is the error the model reads for a call whose arguments, size
// bytes, were over limit: it says so and does not repeat them.
func ArgsTooLarge(name string, size, limit int) error {
	return fmt.Errorf("the arguments of %s are too large: %d bytes, more than the limit of %d. The call was not run, and only the first %d bytes of its arguments were kept. Send less in one call",
		name, size, limit, protocol.CutArgsKeep)
}

// StepArgsTooLarge is the error for a call whose arguments, size bytes, were
// within the limit of one call but passed limit with the step's calls before it.
func StepArgsTooLarge(name string, size, limit int) error {
	return fmt.Errorf("the arguments of %s are too large: with the calls before it in this step they pass %d bytes (this call alone is %d). The call was not run, and only the first %d bytes of its arguments were kept. Make fewer or smaller calls in one step",
		name, limit, size, protocol.CutArgsKeep)
}

// TooManyCalls is the error of the call after the limit of a step's calls:
// it and the calls after it were not run, and those are left out.
func TooManyCalls(name string, limit int) error {
	return fmt.Errorf("too many tool calls in one step: at most %d run. This call (%s) and any after it were not run, and the ones after it are left out. Make fewer calls in one step",
		limit, name)
}

func (s *Set) names() string {
	var b bytes.Buffer
	for i, sp := range s.specs {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(sp.Name)
	}
	return b.String()
}

func describeJSONError(err error) string {
	if err == nil {
		return "got a non-object value"
	}
	return err.Error()
}

func isJSONObject(raw json.RawMessage) bool {
	var obj map[string]json.RawMessage
	return json.Unmarshal(raw, &obj) == nil && obj != nil
}
