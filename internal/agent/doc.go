// Package agent holds the pure logic of one agent step: the model request built from
// the durable transcript, the text the model sees for each RTC outcome, the plan that
// turns the model's tool calls into RTCs under the session's work mode, and the
// resume checkpoint. It does no I/O and imports no transport or database package,
// so every decision can be tested by replaying inputs.
package agent
