// Package chaos runs the reliability suite behind `rtcagent chaos`: many sessions
// of scripted multi-tool turns, driven by simulated browsers (internal/simclient
// with a Profile each), against the server running as child processes, while it
// kills the server with SIGKILL at chosen points (a step streaming, an RTC
// executing in the browser, a result being submitted) and restarts it on the same
// data, drops and reloads browsers, and sends duplicate and concurrent
// submissions. The nodes also run the tools of an MCP server (server RTCs),
// served by the run itself so it outlives the kills. The simulated people
// answer the calls that ask (allowed once or "Allow for this chat", sometimes
// declined), and during turns they revoke those approvals, switch to plan mode
// while calls wait in the queue, and try to refuse server calls that already
// run. In cluster mode it runs three nodes on one PostgreSQL schema and a
// Redis of its own, and also restarts Redis and terminates the nodes' database
// connections.
//
// # Guarantees
//
// After the faults stop and the turns settle, Run checks, per user, against the
// server's own answers (v1.update.list and the v1.*.list methods):
//   - no update is lost: every offset 1..top is in the history and was applied
//     by the client, in order (by Topic or by a v1.update.list fill);
//   - no offset carries two different updates;
//   - no turn is left non-terminal after the settle time;
//   - no RTC was executed twice by a browser profile, nor delivered as new twice;
//   - the entities each client folded from its updates equal the server's;
//   - every answer to a duplicate or concurrent submission equals the stored one;
//   - no call runs after a committed decision that forbade it: at a call's
//     go-ahead (a browser call's delivery, pending; a server call's start,
//     executing) the session as committed at a lower offset does not refuse it
//     (plan mode), and, when it runs unasked, does not ask for it (its "Allow
//     for this chat" revoked, a stricter mode). A decision committed after the
//     go-ahead finds the call delivered or started and cannot stop it. A call
//     runs when it is executing or has a browser's result;
//   - a server call that was executing is never refused: the refusal is
//     answered conflict, and the call ends and is recorded as having run.
//
// Any non-zero count fails the run (Report.Failed). The schedule of faults and
// choices comes from the seed; timings, and so the exact interleavings, do not.
package chaos
