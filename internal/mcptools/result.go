package mcptools

import (
	"encoding/json"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/rtcagent/rtcagent/internal/protocol"
)

// Result is the outcome of one call, in the shape of an RTC's result: Output
// (JSON) and Structured (the tool's structured result, a JSON object, or
// nil) when OK, else Error.
type Result struct {
	OK         bool
	Output     json.RawMessage
	Structured json.RawMessage
	Error      string
}

// resultOf turns a tool's answer into a Result of at most limit bytes. Text parts
// are joined into one string; other parts (images, resources) are kept as their
// JSON. A result marked as an error becomes a failure with that text. The
// structured content is kept apart when it is an object that fits in what
// the output left of the limit (a view then reads it back from the text,
// which carries it too by the specification's rule for older clients).
func resultOf(res *mcp.CallToolResult, limit int) Result {
	var b strings.Builder
	for i, c := range res.Content {
		if i > 0 {
			b.WriteString("\n")
		}
		if t, ok := c.(*mcp.TextContent); ok {
			b.WriteString(t.Text)
			continue
		}
		raw, err := json.Marshal(c)
		if err != nil {
			b.WriteString("[content that could not be encoded]")
			continue
		}
		b.Write(raw)
	}
	text := b.String()
	if text == "" && res.StructuredContent != nil {
		if raw, err := json.Marshal(res.StructuredContent); err == nil {
			text = string(raw)
		}
	}
	if res.IsError {
		if text == "" {
			text = "the tool reported an error without a message"
		}
		return Result{Error: protocol.Cut(text, limit)}
	}
	// The output is the text as a JSON string: escaping can make it longer
	// than the text, so the cut shrinks until the encoding fits.
	full, n := text, limit
	out, _ := json.Marshal(protocol.Cut(full, n))
	for limit > 0 && len(out) > limit && n > 0 {
		n -= len(out) - limit
		out, _ = json.Marshal(protocol.Cut(full, n))
	}
	r := Result{OK: true, Output: out}
	if res.StructuredContent != nil {
		if raw, err := json.Marshal(res.StructuredContent); err == nil && len(raw) > 0 && raw[0] == '{' && len(out)+len(raw) <= limit {
			r.Structured = raw
		}
	}
	return r
}

// boundedError says at most a limit's bytes of a call's error (a server's
// protocol error text has no bound of its own) and keeps the error it wraps
// for errors.Is.
type boundedError struct {
	msg string
	err error
}

func (e *boundedError) Error() string { return e.msg }
func (e *boundedError) Unwrap() error { return e.err }

func bound(err error, limit int) error {
	return &boundedError{msg: protocol.Cut(err.Error(), limit), err: err}
}
