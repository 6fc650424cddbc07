// Package agui serves RTC Agent to AG-UI clients (protocol 1.0; the
// @ag-ui/client HttpAgent, CopilotKit): POST /ag-ui takes a RunAgentInput and
// answers with the run's events as a text/event-stream. The token is the
// WebSocket's (Authorization: Bearer); the device is X-Device-Id, or
// DefaultDevice.
//
// # Mapping
//
//   - A thread is a session: its id is derived from the user and the thread id
//     (ThreadSession), so every node finds it without a table, and the session
//     is created by the thread's first message.
//   - The input's last message, when it is a user message, is sent once
//     (v1.message.send, its client_id derived from the thread and the message
//     id): a run sent again follows the turn it started the first time.
//   - The input's tools are the turn's host tools, and only they are offered
//     (host_tools_only); the server asks no confirmation for them, the client
//     runs them. A call of one ends the run with the success outcome and
//     pendingToolCallIds; the call id is the RTC's id. A tool message answering
//     an open call of the thread is submitted as its result (client_id derived
//     from the call id); results of calls that ended already change nothing,
//     so a reload or a second tab that sends them again is harmless.
//   - The input's context is the turn's AGENT.md (the host's instructions).
//   - What waits for the person is an interrupt: an MCP call to approve
//     (ReasonApproval, its toolCallId the call), an MCP server's request to
//     use the model (ReasonApproval, no toolCallId) or an MCP server's
//     question (ReasonInput, with the form's schema or the link). A resume entry of the
//     next run answers it as the person's browser would (v1.rtc.approve,
//     v1.rtc.update_status rejected, or the question's answer), once.
//   - State and forwarded props are not used.
//
// # Events
//
// RUN_STARTED; MESSAGES_SNAPSHOT when the client's user and assistant texts
// differ from the thread's (a reload, a client that missed a turn);
// STEP_STARTED/STEP_FINISHED per model step; TEXT_MESSAGE_START/CONTENT/END
// from the Live channel, the rest of a message's text (what Live chunks
// missed) at its end; TOOL_CALL_START/ARGS/END when a call is delivered
// (calls are delivered one at a time, so a step's calls reach the client one
// run each); TOOL_CALL_RESULT for a call the server ran (MCP tools) or one
// that ended without the client's result (a deadline, a stop); then
// RUN_FINISHED (success, with the client's pending calls; interrupt, with what
// the person is asked; or cancelled for a stopped turn) or RUN_ERROR for a
// failed turn.
//
// # Guarantees
//
// A run reads the thread before it acts and then receives every later change
// through a realtime.Feed connected before that read, so nothing its own
// commits change is missed; entities are applied only in newer states, so
// what was read and what arrives may overlap. A feed that is lost is
// connected again and the thread read again (at most three times). The run
// finishes when the thread waits for the client or is idle; the turn itself
// never depends on the stream: a client that goes away, or a server that is
// killed, leaves the turn to go on, and the next run follows it. A user has
// at most Config.RunsPerUser runs open on one node; the next is refused with
// rate_limited before it reads or acts.
package agui
