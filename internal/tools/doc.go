// Package tools knows the browser tools the model may call: the eight built-ins'
// schemas, the host tools a page registers, the work-mode permission matrix, and the
// server-side argument checks done before a call becomes an RTC. It also knows the
// tools the model never calls: an MCP server's question to the person
// (Elicitation), its form read from the requested schema and its answer checked
// against it, and a server's request to use the model (SamplingTool), bounded.
// It does no I/O.
package tools
