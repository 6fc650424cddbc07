// Package otlpreceiver is a minimal in-process OTLP/HTTP trace receiver for
// tests: it accepts POST /v1/traces (protobuf, optionally gzip), keeps the spans
// and renders a trace as a text or HTML waterfall. It is not a collector: it keeps
// everything in memory and forwards nothing.
package otlpreceiver
