package protocol

import (
	"encoding/json"
	"fmt"
	"unicode/utf8"
)

// Outside input over a limit is cut where it enters: what is kept is a prefix
// and a note saying how much was cut, never the whole. These are the only
// helpers that cut; each caller picks the limit.

// CutArgsKeep is how much of a tool call's arguments is kept when they are over
// a limit. The call is refused, so the prefix only shows what the model tried
// (to the person and to the model itself in later steps); more would cost
// tokens in every later request of the session.
const CutArgsKeep = 4 << 10

// CutNote is the note that ends a value cut from total bytes to kept bytes.
func CutNote(kept, total int) string {
	return fmt.Sprintf("\n[cut: %d of %d bytes not kept]", total-kept, total)
}

// Cut returns s when it is at most limit bytes, else a prefix of s (cut on a
// rune boundary) followed by CutNote, together at most limit bytes. A limit too
// small for the note keeps only a prefix. limit <= 0 means no limit.
func Cut(s string, limit int) string {
	if limit <= 0 || len(s) <= limit {
		return s
	}
	keep := limit - len(CutNote(limit, len(s)))
	if keep < 0 {
		return Prefix(s, limit)
	}
	p := Prefix(s, keep)
	return p + CutNote(len(p), len(s))
}

// CutArgs returns the arguments of a tool call as they are kept once they were
// over a limit: a JSON string holding their first keep bytes and the note, so
// they stay valid JSON for the store, the browser and the model's transcript.
func CutArgs(raw []byte, keep int) json.RawMessage {
	p := Prefix(string(raw), keep)
	out, _ := json.Marshal(p + CutNote(len(p), len(raw)))
	return out
}

// Prefix is the longest prefix of s of at most n bytes that does not end inside
// a rune: what is kept of a value cut while it streams in.
func Prefix(s string, n int) string {
	if n >= len(s) {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}
