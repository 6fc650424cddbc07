package protocol

import (
	"strconv"
	"unicode/utf8"
)

// Cut bounds a string that came from outside (an MCP server, a model, a
// browser) where it enters: at most limit bytes, a prefix cut on a rune
// boundary and a note that says how much was left out, so what is stored, sent
// to every tab and read by the model stays small and still says it is partial.
// A limit of 0 or less keeps s whole.
func Cut(s string, limit int) string {
	if limit <= 0 || len(s) <= limit {
		return s
	}
	// The note's number depends on where the cut falls; the widest number
	// (every byte left out) reserves enough room for any cut.
	room := limit - len(cutNote(len(s)))
	if room <= 0 {
		return cutPrefix(s, limit)
	}
	head := cutPrefix(s, room)
	return head + cutNote(len(s)-len(head))
}

func cutNote(n int) string { return "… [cut: " + strconv.Itoa(n) + " bytes more]" }

// cutPrefix is the longest prefix of s of at most n bytes that ends on a rune
// boundary.
func cutPrefix(s string, n int) string {
	if n >= len(s) {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}
