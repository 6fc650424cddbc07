package protocol

import "encoding/json"

// The rest of the cut helpers (Cut is in cut.go): what a value over a limit
// keeps is a prefix and a note saying how much was left out.

// CutArgsKeep is how much of a tool call's arguments is kept when they are over
// a limit. The call is refused, so the prefix only shows what the model tried
// (to the person and to the model itself in later steps); more would cost
// tokens in every later request of the session.
const CutArgsKeep = 4 << 10

// CutNote is the note that ends a value of which n bytes were left out.
func CutNote(n int) string { return cutNote(n) }

// Prefix is the longest prefix of s of at most n bytes that does not end inside
// a rune: what is kept of a value cut while it streams in.
func Prefix(s string, n int) string { return cutPrefix(s, n) }

// CutArgs returns the arguments of a tool call as they are kept once they were
// over a limit: a JSON string holding their first keep bytes and the note, so
// they stay valid JSON for the store, the browser and the model's transcript.
func CutArgs(raw []byte, keep int) json.RawMessage {
	p := cutPrefix(string(raw), keep)
	out, _ := json.Marshal(p + cutNote(len(raw)-len(p)))
	return out
}
