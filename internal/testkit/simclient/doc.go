// Package simclient is a simulated browser: a centrifuge-go client that speaks the
// RTC Agent protocol (docs/protocol.md) the way the browser SDK does. Tests and
// the load tool (internal/bench) use it; it reports problems as returned errors,
// never through testing.T, so commands can use it too.
//
// # Guarantees
//
//   - Dial returns once the connection is established (or with the error).
//   - Every Topic update is checked: the publication offset must equal the payload
//     offset, and offsets must grow by exactly 1 from the first one seen. Breaches
//     are kept and returned by Err (they are protocol violations, not I/O errors).
//   - Delivered RTCs (status pending) are executed one at a time, in delivery
//     order, each at most once per client: v1.rtc.update_status executing (not for
//     the read-only built-ins, tools.ReadOnly), then the tool function, then
//     v1.rtc.submit_result (or a rejection) with a client_id derived from the RTC
//     id, so a retried submit is idempotent on the server.
//   - With Config.Confirm a delivered call that needs confirmation is asked
//     about first, as the browser SDK asks the person: a browser call runs only
//     when allowed (the answer, once or "Allow for this chat", goes with
//     update_status executing), a refused one is rejected with the denial; a
//     server call is approved (v1.rtc.approve) or rejected.
//   - RPC errors from the server come back as *protocol.Error (code mapped with
//     protocol.CodeFromRPC); transport errors come back as they are.
//   - With Config.Record false the client keeps only the latest turn states, so
//     thousands of clients fit in one process (the load tool's idle connections).
//   - With Config.Profile the client behaves like the browser SDK across
//     reconnects and page reloads (a new Client on the same Profile): updates are
//     applied strictly in offset order, a gap is filled from v1.update.list, an
//     offset seen twice with different content is a violation; after every
//     subscription the open RTCs are re-fetched (v1.rtc.pending); each RTC runs
//     at most once per Profile (journal written before the tool runs, result kept
//     until acknowledged, a call a closed page had started is reported as
//     interrupted), and calls are retried across server restarts (CallRetry).
package simclient
