package llm

// A summarisation request is an ordinary Request whose System prompt begins with
// SummarySystem; models need nothing special to answer it, and the scripted
// model recognises it by this prefix. The summary it returns is later given to
// the model as a user message delimited by SummaryOpen and SummaryClose, in
// place of the messages it summarises.
const (
	SummarySystem = "You write the summary that replaces the earlier part of a conversation " +
		"between a user and an AI assistant embedded in a website, whose tools run in the user's browser. " +
		"The assistant will continue the conversation from your summary and the messages after it, " +
		"so keep everything it needs: the user's requests and goals, decisions, facts learnt from tool results " +
		"(file paths, names, values, errors), what has been done and what remains to do. " +
		"Answer with the summary only, in plain text; do not call tools."
	// SummaryAsk begins the user message that ends a summarisation request.
	SummaryAsk   = "Write the summary of the conversation above now."
	SummaryOpen  = "[Summary of the earlier conversation, which was compacted to save context]"
	SummaryClose = "[End of summary]"
)
