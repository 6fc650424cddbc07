// Package agent holds the pure logic of one agent step: the model request built from
// the durable transcript (from its latest summary on), the text the model sees for
// each RTC outcome, the bounds on the model's tool calls (AdmitCall), the
// system prompt with the page's AGENT.md, and the cut of a
// compaction, which never separates a tool call from its result. It does no I/O and imports no transport or database package,
// so every decision can be tested by replaying inputs.
package agent
