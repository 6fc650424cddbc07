// Package mcptools connects the server to MCP servers (Model Context Protocol,
// official Go SDK) listed in the -mcp-config file, and offers their tools to the
// model beside the browser tools.
//
// Guarantees:
//   - The config is checked before anything starts: a bad file is refused with
//     a message that names the server and the field, and the number of servers,
//     headers and arguments is bounded.
//   - Each server is connected at start and, when its connection fails or ends,
//     again with a growing backoff; its tools are listed at each connection and
//     again on tools/list_changed. A tool whose name cannot be offered to a model
//     (charset, length) or whose schema is too large is left out and logged.
//   - Tool names the model sees are "<server>__<tool>": letters, digits, _ and -,
//     at most 64 characters, unique across servers.
//   - Every string a server sends is bounded where it enters: a call's result
//     and error text (a protocol error included) are cut to ResultBytes with
//     a note of what was left out (protocol.Cut); tool names and schemas are
//     checked at listing.
//   - A stdio server's message over MessageBytes does not end the connection:
//     an answer that long fails its call alone, with a message that says why.
//   - A tool listed with execution.taskSupport "required" or "optional" (the
//     MCP tasks extension) is called as a task when its server declares tasks
//     for tools/call: the task's id reaches Hooks.Task before the call waits,
//     its status messages are the call's progress, the questions it asks for
//     the task go to the call's Asker, and ResumeTask waits for the same task
//     after a restart, running nothing again. A "required" tool of a server
//     that declares no tasks is left out and logged. The Go SDK has no method
//     for tasks: their requests go beside it on the same connection and MCP
//     session (side.go).
//   - The client runs tasks for servers (client_tasks.go): it declares tasks
//     for sampling and elicitation; such a request sent as a task is answered
//     with a task at once and asked like any other, its status and result
//     kept for tasks/get and tasks/result; at most maxClientTasks per
//     connection, each for at most maxClientTaskTTL, all ended with the
//     connection.
//   - Call runs one tool call once and never retries it: retrying a call that
//     may have reached the server is the caller's decision (Rerunnable says
//     whether the tool is annotated read-only or idempotent). Both wait, until
//     their ctx ends, for the tool's server to list its tools once, so a call
//     resumed while a slow server starts is not failed for it.
//   - An elicitation request from a server during a call goes to the Asker the
//     call was given, as a tools.Question (a form's schema or a link); with
//     none, it is declined.
//   - Each call carries a progress token of its own (unique among the calls in
//     flight on its connection); the server's progress notifications for it go
//     to the call's Progress hook, bounded (message cut to
//     protocol.ProgressMessageBytes, a progress that is no finite number of at
//     least 0 dropped), and never after the call returned. Notifications of no
//     call in flight are dropped.
package mcptools
