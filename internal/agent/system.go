package agent

import "strings"

// SystemPrompt is the system prompt of a turn's steps: the server's prompt and,
// when the page sent its AGENT.md with the turn's message, that file, delimited as
// the host site's instructions so the model can tell them from the server's.
func SystemPrompt(base, agentMD string) string {
	agentMD = strings.TrimSpace(agentMD)
	if agentMD == "" {
		return base
	}
	return base + "\n\n" +
		"The website you are embedded in gives the following instructions (its AGENT.md). Follow them where they " +
		"do not conflict with the instructions above.\n" +
		"<host_site_instructions source=\"AGENT.md\">\n" +
		strings.ReplaceAll(agentMD, "</host_site_instructions>", "</host_site_instructions_>") +
		"\n</host_site_instructions>"
}
