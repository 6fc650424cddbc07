// Package auditexport writes the audit records of tool calls from the store as
// JSON lines or CSV, for operators who read the store directly
// (`rtcagent audit export`). It reads in pages, so memory stays flat however many
// records match, and it never writes to the store.
package auditexport
