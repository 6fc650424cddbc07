// Package bench is the load tool behind `rtcagent bench`: it starts an in-process
// server (server.New on a loopback listener, a zero-latency scripted model whose
// only tool call is "ls", the message rate limit off), drives it with
// internal/simclient browsers, and reports one table per run:
//
//  1. RTC round trip server overhead (model emits a tool call → the server's
//     next model request) p50/p90/p99 at each concurrency;
//  2. sustained RTC round trips per second;
//  3. memory per idle connection (see idle.go for how, and why);
//  4. Live chunk latency, model chunk → client receive;
//  5. the floor on the same machine in the same run: a bare Centrifuge publish →
//     receive and one durable store commit, and the ratio ours / floor;
//  6. upstream bytes and round trip per tool call as the conversation grows,
//     next to a stateless baseline in the Vercel AI SDK's pattern (history.go,
//     stateless.go): every tool result re-posts the whole conversation.
//
// Every load point starts with an unmeasured warm-up (Options.Warmup). Row 2
// also counts, per round trip, what the server process allocated, the
// goroutines it started and its threads' sleeps, and with Options.Handoffs the
// hand-offs between goroutines that a runtime trace of the window shows
// (handoffs.go).
//
// Clients and server share the process and its CPUs, so the numbers include the
// clients' cost; on 2 cores this is a large share at high concurrency. Only
// loopback addresses are used, and every phase is bounded in time.
package bench
