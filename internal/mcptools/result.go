package mcptools

import (
	"encoding/json"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Result is the outcome of one call, in the shape of an RTC's result: Output
// (JSON) when OK, else Error.
type Result struct {
	OK     bool
	Output json.RawMessage
	Error  string
}

// resultOf turns a tool's answer into a Result of at most limit bytes. Text parts
// are joined into one string; other parts (images, resources) are kept as their
// JSON. A result marked as an error becomes a failure with that text.
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
	text = truncate(text, limit)
	if res.IsError {
		if text == "" {
			text = "the tool reported an error without a message"
		}
		return Result{Error: text}
	}
	out, _ := json.Marshal(text)
	for limit > 0 && len(out) > limit && text != "" {
		text = truncate(text, len(text)-(len(out)-limit)-1) // escaping made it longer
		out, _ = json.Marshal(text)
	}
	return Result{OK: true, Output: out}
}

// truncate cuts s to at most limit bytes (minus a note) on a rune boundary.
func truncate(s string, limit int) string {
	const note = "\n[truncated]"
	if limit <= 0 || len(s) <= limit {
		return s
	}
	cut := limit - len(note) - 16 // room for JSON escaping of the note
	if cut < 0 {
		cut = 0
	}
	for cut > 0 && !utf8Start(s[cut]) {
		cut--
	}
	return s[:cut] + note
}

func utf8Start(b byte) bool { return b&0xC0 != 0x80 }
