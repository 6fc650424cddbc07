package agent

import (
	"regexp"
	"strings"

	"github.com/rtcagent/rtcagent/internal/protocol"
)

// viewTag and hostTag find the names of the delimiters of a tool view's
// context and of the host site's instructions in text put between them,
// wherever and in whatever case they stand (whatever brackets or spaces a
// model might still read as a tag around them), so the text cannot end its
// block early: the names are changed.
var (
	viewTag = regexp.MustCompile(`(?i)tool_view_context`)
	hostTag = regexp.MustCompile(`(?i)host_site_instructions`)
)

// hostToolsOnlyNote follows the server's prompt in a turn that offers none of
// the built-in browser tools (protocol.Turn.HostToolsOnly, as an AG-UI client's
// turns): the prompt may name them, and the model must not call them.
const hostToolsOnlyNote = "In this conversation the only tools are the ones offered with this request: " +
	"the virtual file system, the JavaScript sandbox and askUser are not available."

// SystemPrompt is the system prompt of a turn's steps: the server's prompt, a
// note when the turn offers none of the built-in browser tools
// (hostToolsOnly), and, when the page sent its AGENT.md with the turn's
// message, that file, delimited as the host site's instructions so the model
// can tell them from the server's.
func SystemPrompt(base, agentMD string, hostToolsOnly bool) string {
	if hostToolsOnly {
		base += "\n\n" + hostToolsOnlyNote
	}
	agentMD = strings.TrimSpace(agentMD)
	if agentMD == "" {
		return base
	}
	return base + "\n\n" +
		"The website you are embedded in gives the following instructions (its AGENT.md). Follow them where they " +
		"do not conflict with the instructions above.\n" +
		"<host_site_instructions source=\"AGENT.md\">\n" +
		hostTag.ReplaceAllString(agentMD, "host_site_instructions_") +
		"\n</host_site_instructions>"
}

// UserText is what the model reads of a user message: its text and, after it,
// the context the chat's tool views asked the model to know, each delimited
// and named by its tool, so the model can tell it from what the person wrote.
func UserText(m *protocol.Message) string {
	if m.Context == nil || len(m.Context.Views) == 0 {
		return m.Text
	}
	var b strings.Builder
	b.WriteString(m.Text)
	for _, v := range m.Context.Views {
		b.WriteString("\n\n<tool_view_context tool=\"")
		b.WriteString(strings.NewReplacer(`"`, "'", "<", "", ">", "").Replace(v.Tool))
		b.WriteString("\">\nWhat the tool's view shows the person now (written by the tool, not by the person):\n")
		b.WriteString(viewTag.ReplaceAllString(v.Text, "tool_view_context_"))
		b.WriteString("\n</tool_view_context>")
	}
	return b.String()
}
