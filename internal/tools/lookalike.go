package tools

import (
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/cases"
	"golang.org/x/text/unicode/norm"
)

// When a path reads as another one to a person, the server decides as the
// browser does (web/src/vfs/confusables.ts and warnings.ts): a path that reads
// as a protected path under Unicode compatibility (NFKC), case folding and the
// confusable mappings of UTS #39, with characters that show as nothing left out,
// is protected; a path that is long, mixes scripts within a word, or holds such
// characters is misleading, and "Allow for this chat" never covers it.

// longPathChars is the length past which a path is misleading: it no longer
// fits a confirmation's line or two.
const longPathChars = 160

var (
	confusableOnce  sync.Once
	confusableTable map[rune]string
)

func confusableWith(r rune) (string, bool) {
	confusableOnce.Do(func() {
		confusableTable = make(map[rune]string, 700)
		for _, pair := range strings.Split(confusablePairs, "\n") {
			r, n := utf8.DecodeRuneInString(pair)
			confusableTable[r] = pair[n:]
		}
	})
	s, ok := confusableTable[r]
	return s, ok
}

// invisible reports a character that shows as nothing: a default-ignorable
// code point (formats, variation selectors, the Hangul fillers) or the braille
// blank.
func invisible(r rune) bool {
	return r == '\u2800' || unicode.In(r, unicode.Other_Default_Ignorable_Code_Point, unicode.Cf, unicode.Variation_Selector)
}

// skeleton maps each character to the ASCII it is confusable with.
func skeleton(s string) string {
	var b strings.Builder
	for _, r := range s {
		if to, ok := confusableWith(r); ok {
			b.WriteString(to)
		} else {
			b.WriteRune(r)
		}
	}
	return b.String()
}

var folder = cases.Fold()

// lookalikeKeys are the forms under which path reads as another: NFKC and
// case folding, with and without the confusable skeleton (before and after
// folding), without invisible characters, blanks at a name's ends and empty
// segments.
func lookalikeKeys(path string) [3]string {
	n := strings.Map(func(r rune) rune {
		if invisible(r) {
			return -1
		}
		return r
	}, norm.NFKC.String(path))
	segs := strings.Split(n, "/")
	kept := segs[:0]
	for _, s := range segs {
		if s = strings.TrimFunc(s, unicode.IsSpace); s != "" {
			kept = append(kept, s)
		}
	}
	n = "/" + strings.Join(kept, "/")
	fold := func(s string) string { return folder.String(s) }
	return [3]string{fold(n), fold(skeleton(n)), fold(skeleton(fold(n)))}
}

// looksWithin reports whether path reads as target or as something below it.
func looksWithin(path, target string) bool {
	p, t := lookalikeKeys(path), lookalikeKeys(target)
	for i := range p {
		if p[i] == t[i] || strings.HasPrefix(p[i], t[i]+"/") {
			return true
		}
	}
	return false
}

// scriptOf names the script of a letter among those told apart ("" for Common
// and Inherited, which belong to every script).
func scriptOf(r rune) string {
	if unicode.In(r, unicode.Common, unicode.Inherited) {
		return ""
	}
	for _, name := range []string{"Latin", "Greek", "Cyrillic", "Armenian", "Georgian", "Cherokee", "Hebrew", "Arabic", "Han", "Hiragana", "Katakana", "Hangul", "Bopomofo"} {
		if unicode.Is(unicode.Scripts[name], r) {
			return name
		}
	}
	return "another script"
}

// allowedMixes is UTS #39's "highly restrictive" level: one script, or Latin
// with the scripts Japanese, Chinese and Korean are written in together.
var allowedMixes = []map[string]bool{
	{"Latin": true, "Han": true, "Hiragana": true, "Katakana": true},
	{"Latin": true, "Han": true, "Bopomofo": true},
	{"Latin": true, "Han": true, "Hangul": true},
}

// mixesScripts reports a word (a run between characters of script Common)
// whose letters mix scripts beyond the highly restrictive level.
func mixesScripts(path string) bool {
	found := map[string]bool{}
	flush := func() bool {
		defer clear(found)
		if len(found) <= 1 {
			return false
		}
		for _, mix := range allowedMixes {
			ok := true
			for s := range found {
				ok = ok && mix[s]
			}
			if ok {
				return false
			}
		}
		return true
	}
	for _, r := range path {
		if unicode.Is(unicode.Common, r) {
			if flush() {
				return true
			}
			continue
		}
		if s := scriptOf(r); s != "" {
			found[s] = true
		}
	}
	return flush()
}

// MisleadingPath reports a path that may not read as what it is: longer than
// longPathChars, a word mixing scripts, or characters that show as nothing or
// as a space that is not one (also a space at a name's end).
func MisleadingPath(path string) bool {
	if utf8.RuneCountInString(path) > longPathChars || mixesScripts(path) {
		return true
	}
	for i, r := range path {
		if invisible(r) || (unicode.IsSpace(r) && r != ' ') {
			return true
		}
		if r == ' ' && (i == 0 || path[i-1] == '/' || i == len(path)-1 || path[i+1] == '/') {
			return true
		}
	}
	return false
}
