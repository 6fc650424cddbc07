// Package protocol holds the wire types of RTC Agent: the entities carried by Topic
// updates and RPC results (sessions, turns, messages, RTCs), the Live delta, the
// request and result shapes of every v1 method, the stable error codes, and the
// input limits. docs/protocol.md is the human-readable contract; the golden JSON
// fixtures in testdata/ pin the encoding for both the Go and TypeScript sides.
//
// The package has no dependencies beyond the standard library and does no I/O.
package protocol
