// Package scripted is a deterministic llm.Model driven by a JSON script. Tests use
// it to drive the engine step by step; the server uses Default() as its demo model
// when no provider API key is configured.
//
// # Script format
//
//	{"name": "demo", "turns": [
//	  {"match": "(?i)hello", "steps": [
//	    {"text": "Let me write a file.",
//	     "tool_calls": [{"name": "write", "arguments": {"path": "/a.txt", "content": "hi"}}]},
//	    {"chunks": ["The file ", "says: ", "{{last_result}}"]}
//	  ]},
//	  {"steps": [
//	    {"text": "Bad arguments ahead.",
//	     "tool_calls": [{"name": "read", "raw_arguments": "{\"path\": "}]},
//	    {"text": "Slow, then failing.", "delay_ms": 50,
//	     "error": {"category": "provider_unavailable", "retryable": true, "message": "overloaded"}}
//	  ]}
//	]}
//
// A turn answers one user message; each of its steps is the output of one model
// call (the engine calls again after the tool results of a step are in).
//
// Turn selection: the first turn whose "match" (a Go regexp) matches the text of
// the last user message of the request. When none does, the turns without "match"
// are used in rotation: index (user messages − 1) modulo their count. When there
// is no such turn either, the model says that no turn matches.
//
// Step selection: the step index is the number of assistant messages after the
// last user message. Past the last step the model emits EndOfScript and no tool
// calls.
//
// A step emits, in order:
//   - text events: "chunks" verbatim if given, else "text" cut into word-sized
//     pieces whose concatenation is exactly the text; empty pieces are skipped;
//   - one tool call event per "tool_calls" entry, with id call_<u>_<s>_<i> (u =
//     user messages in the request, s = step index, i = index in the step), which
//     is unique within a conversation; "arguments" (any JSON value) is emitted as
//     compact JSON text, "raw_arguments" (a string) verbatim, "{}" when neither;
//     with "argument_chunks": n, the call is first written in n pieces of its
//     arguments (tool call delta events), as a model streams it;
//   - one usage event: input tokens = characters of the request's messages (text,
//     tool names and arguments) / 4, output tokens = characters of the emitted
//     text / 4, each at least 1.
//
// In "text" and "chunks", {{last_result}} is replaced by the text of the last tool
// message of the request (empty if none), {{user}} by the last user message, and
// {{find:REGEXP}} by the distinct matches of REGEXP (which may not contain "}}")
// in the texts of all the request's messages, in order, joined by commas.
//
// # Summaries
//
// A request whose system prompt begins with llm.SummarySystem is a summarisation
// request: the model answers with a summary, one line per item, whatever the
// turns say. With "summary": {"keep": "REGEXP"} the items are the distinct matches
// of REGEXP in the summarised messages (the previous summary included), else the
// previous summary's lines and the user messages; "delay_ms" paces it like a
// step's. The last line records where the
// summarised conversation stood (user messages, last user message, steps after
// it); a later request that starts from that summary (a user message beginning
// with llm.SummaryOpen) counts as that conversation, so turn and step selection
// and tool call ids go on unchanged. Text after llm.SummaryClose in the same
// message is a user message (providers that merge consecutive user messages).
//
// Optional per step: "delay_ms" sleeps before every event but the first, and the
// stream ends with ctx.Err() if the context is cancelled meanwhile; "error" ends
// the stream with an *llm.Error (category, retryable, status, message) after the
// text events, without tool calls or usage.
//
// # Guarantees
//
// The events of a step depend only on the script and the request. Model is safe
// for concurrent use and records a deep copy of every request (Requests), so
// tests can assert exactly what the model saw. Scripts are validated up front:
// bad regexps, turns without steps, tool calls without a name, invalid JSON
// arguments, unknown error categories and unknown fields are rejected.
package scripted
