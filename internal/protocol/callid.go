package protocol

import "strings"

// The calls the server makes under another call name it in their
// tool_call_id: a tool view's calls (ViewCallIDPrefix) and an MCP server's
// questions and requests to use the model (QuestionCallIDPrefix). A model's
// own call is never taken for one of them (ModelCallID).
const (
	ViewCallIDPrefix     = "app:"
	QuestionCallIDPrefix = "elicit:"
)

// ModelCallID is the tool_call_id a model's call is kept under: the model's
// own id, marked as the model's when it starts as the server's own calls'
// ids do.
func ModelCallID(id string) string {
	if strings.HasPrefix(id, ViewCallIDPrefix) || strings.HasPrefix(id, QuestionCallIDPrefix) {
		return "model:" + id
	}
	return id
}
