// Package client is the Go client of RTC Agent: a program connects to the
// server as one device of a user, offers its own tools (Go functions with JSON
// Schemas) to the agent, sends messages and follows the streamed answers. The
// agent's tool calls (RTCs) run in this program, the way the browser SDK runs
// them in a page. The wire contract is docs/protocol.md.
//
//	c, _ := client.New(client.Options{URL: "ws://localhost:8080/connection/websocket",
//		TokenFunc: getToken, DeviceID: "build-bot-1", JournalDir: "/var/lib/bot"})
//	c.RegisterTool(client.Tool{Name: "add", Schema: schema, Run: add})
//	go c.Run(ctx)
//	reply, _ := c.Send(ctx, "", "what is 2+3?")
//	for ev := range reply.Events() { … }
//
// # Guarantees
//
//   - At most once. Before a tool runs, "started X" is appended to the journal
//     (one file per device in JournalDir) and synced to disk, then the server is
//     told the call is executing. A call the journal shows as started but without
//     a result (the process was killed while the tool ran) is reported to the
//     server as failed with an "interrupted" error and never run again, also
//     after a restart. A call the server shows as executing that this journal
//     does not know is treated the same way.
//   - No result is lost. The result is appended to the journal and synced before
//     it is submitted; it is resubmitted (same client_id, backoff 1 s doubling to
//     30 s) until the server answers, across reconnects and restarts. A call that
//     ended otherwise on the server meanwhile (stopped, timed out, session gone)
//     keeps the server's outcome.
//   - Only this device's calls run: calls of sessions another device created are
//     never executed. Calls run one at a time, in delivery order.
//   - Confirmation: host tools need a person's approval in the work modes manual
//     and edit (the server's needs_confirmation, and this client's own copy of the
//     rule). Options.Confirm is asked; without it such calls are rejected. Send
//     with WorkMode "bypass" to run tools without asking.
//   - Tokens: TokenFunc is called for the first connection when Token is empty,
//     and again before the token expires (Centrifuge refresh) and after the
//     server refused an expired one.
//   - Updates of the user's stream are applied in offset order; a gap is filled
//     from v1.update.list; after every (re)subscription the open calls of this
//     device are fetched again (v1.rtc.pending), so nothing delivered while the
//     client was away is missed.
//   - A Reply sees the events of its turn in order: text chunks (each Live chunk
//     once, in seq order; Live may lose chunks, so the final message text replaces
//     them), tool calls and their outcomes, and the end of the turn.
//
// Only one process may use a journal at a time (the file is locked). Without
// JournalDir the journal lives in memory: at most once then holds only within
// the process.
package client
