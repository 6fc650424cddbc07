// Package telemetry traces turns with OpenTelemetry and measures tool calls.
//
// One trace per turn. The turn's trace context (a W3C traceparent) is stored with
// the turn when it starts, and each RTC stores the traceparent of its own span
// in that trace, so a turn resumed by another process or after a restart, and a
// result that arrives hours later, join the same trace. Spans that live within
// one process (model steps, compactions) are ordinary spans; spans that outlive a
// process (the turn, each RTC and its phases) are written once, when they end,
// from the timestamps in the store, with the span ids stored before.
//
// The Observer reads the commits of the store (the same hook the realtime relay
// uses; it never blocks a commit) and writes the spans and metrics of turns and
// RTCs that ended. Human time (confirmations, askUser) is kept in spans and
// metrics of its own, apart from machine time. Tracing is best effort: a span
// lost in a crash is not written again; the audit records in the store are the
// durable account.
//
// A nil *Tracer is valid and does nothing: tracing is off unless an OTLP
// endpoint is configured.
package telemetry
