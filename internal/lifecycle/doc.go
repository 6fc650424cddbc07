// Package lifecycle is the life of a turn and of its remote tool calls (RTCs),
// from the model's step that asks for tools to the turn's resumption. Each
// transition is one function that runs inside a store transaction it is
// given, so what it changes, its Topic updates, its audit records and the
// inbox work it queues commit together or not at all. The API (a person's
// answers and results) and the session worker (steps, server calls,
// deadlines) call the same functions.
//
// # The state machine
//
// A turn:
//
//	queued ──StartTurn──▶ running ──CallTools──▶ waiting ──Resume──▶ running ─▶ …
//	                         │                      │
//	                         └──── EndTurn: completed, failed (FailTurn), stopped (StopTurn, StopSession)
//
// An RTC:
//
//	queued ──Deliver──▶ pending ──▶ sent ──▶ executing ──▶ completed | failed
//	   │                   └──────────┴──────────┴──────▶ rejected | timeout
//	   └── refused when it comes up (plan mode): rejected
//
// A step's calls are planned together (PlanRTCs) and run one after another:
// the first that can run is delivered, the rest wait as queued. A call that
// cannot run ends at planning (an unknown tool, bad or cut arguments as
// failed; a write in plan mode as rejected). The browser reports sent and
// executing and submits the result (UpdateRTCStatus, SubmitResult); the
// server runs its own calls, those of MCP servers (ApproveRTC, StartServerRTC,
// EndServerRTC, TimeOutServerRTC, ProgressServerRTC), and asks the person the
// questions their servers put during a call and their requests to use the
// model (Ask, EndSample). A deadline that passes ends a call as timeout
// (ExpireRTC).
//
// # What each transition writes
//
//   - CallTools (the step that asks for tools): every planned RTC with its
//     audit record, the first delivered (pending, its deadline from now), and
//     the turn, waiting, with a checkpoint that outlives the step's longest
//     wait. The model's message was written just before, in the same
//     transaction. One Topic update carries them all.
//   - Deliver: the RTC, pending, and its audit record; for a server call that
//     needs no confirmation, an rtc.execute item for the worker.
//   - UpdateRTCStatus, ApproveRTC: the RTC and its audit record; "Allow for
//     this chat" also the session's approvals and the queued calls of the same
//     tool it now covers.
//   - The end of a call (SubmitResult, EndServerRTC, ExpireRTC, a refusal):
//     the RTC with its audit record, then, in the same transaction, either the
//     next queued call of the step delivered or, when none is left open, a
//     turn.resume item.
//   - Ask: an MCP server's question during its call, a new RTC of the call's
//     step (tools.Elicitation), pending with its audit record, or failed with
//     why when it cannot be shown; its answer is checked against the question
//     when it is submitted. A request to use the model (tools.SamplingTool) is
//     asked the same way, as an RTC the server runs: no work is queued for it
//     (the call that made it waits for the person's approval, unless the
//     session allows that server's requests for the chat), and EndSample
//     records the model's answer and adds its tokens to the turn.
//   - CallFromView: a call a tool's view asks for, a new RTC of the view's
//     call's turn (tool_call_id app:<call>:<client_id>) with its audit
//     record, decided like the model's calls of that server (rejected in
//     plan mode, pending for the person, or handed to the worker); it runs
//     beside the step's calls, and the turn resumes only once it ended too.
//   - Resume: the turn, running again (or failed, when its checkpoint expired).
//   - EndTurn: the turn, its streaming messages closed, its open calls failed,
//     the session (no active turn, the turn's usage added) and the start item
//     of the next queued turn.
//
// Each transition reads the rows it changes once (the store caches a row read
// in the transaction and serves reads asked for ahead of time, Tx.Prefetch,
// with the stream lock), writes each once, and never reads back an audit
// record: the record is the RTC's own row, the call with the state of its
// record it carries (RTC.Audit), so a call's change writes one row.
//
// # Invariants
//
//   - An RTC reaches a terminal status only through a compare-and-set on the
//     status it was read in; the transaction that ends it decides, before it
//     commits, whether the next queued call is delivered or the turn resumes.
//     A lost race is store.ErrConflict: the caller's next attempt reads the
//     winner's state (a repeated result returns the stored outcome).
//   - A step's calls run one at a time, and a turn waits until every call of
//     its step is terminal; the worker takes no step while its turn waits. A
//     resume item is taken only while it is due (ResumeDue): a second one,
//     queued by a view's call that ended before the turn resumed, finds the
//     next step's calls open and is dropped.
//   - What the person decided reaches every call not yet started: a queued
//     call is decided again from the session as it is when it is delivered
//     (Deliver) and a server call when it starts (StartServerRTC). Plan mode
//     refuses it, a revoked approval makes it ask. Both transactions read the
//     session under the user's stream lock, so a decision committed before
//     them applies and one committed after finds the call started.
//   - Every RTC has its audit record, in its own row, so no call is created,
//     changed or ended without its record saying so: the decision (work mode,
//     a person on a device, timeout, cancelled), the outcome and the timings.
//   - Ending a turn ends its open calls, closes its streaming messages and
//     queues the session's next turn; no message streams in an ended turn.
//   - No transaction here waits on anything but the database: a streaming
//     message's text comes from memory (Live), a model, an MCP server or
//     Redis are called outside any transaction.
package lifecycle
