package tools

import (
	"encoding/json"
	"strings"
)

// ProtectedPaths are the files and folders of the browser's file system whose
// content later becomes instructions or code: /AGENT.md is sent to the model with
// every message as the site's instructions, and /.scripts/ holds the saved scripts
// that `script run` executes. A write or edit there asks the user in every work
// mode except bypass, so nothing the model wrote silently steers a later turn.
var ProtectedPaths = []string{"/AGENT.md", "/.scripts"}

// ProtectedPathsText lists the protected paths for tool descriptions and errors.
const ProtectedPathsText = "/AGENT.md and everything under /.scripts/"

// IsProtectedPath reports whether a path of the browser's file system names a
// protected path or something below it, or reads as one (lookalike.go:
// /АGENT.md with a Cyrillic А, /agent.md, a fullwidth ＡＧＥＮＴ.md). It
// normalises the way the browser's VFS does (relative paths start at the root,
// empty and "." segments drop). A path
// with ".." is refused by the VFS; it counts as protected here, so a spelling the
// server cannot resolve asks rather than runs.
func IsProtectedPath(p string) bool {
	parts := make([]string, 0, 4)
	for _, seg := range strings.Split(p, "/") {
		switch seg {
		case "", ".":
			continue
		case "..":
			return true
		}
		parts = append(parts, seg)
	}
	clean := "/" + strings.Join(parts, "/")
	for _, root := range ProtectedPaths {
		if clean == root || strings.HasPrefix(clean, root+"/") || looksWithin(clean, root) {
			return true
		}
	}
	return false
}

// touchesProtected reports whether the arguments of a write or edit name a
// protected path. Arguments whose path cannot be read count as protected: the
// call then asks, and the browser refuses the bad path anyway.
func touchesProtected(args json.RawMessage) bool {
	p, ok := argPath(args)
	return !ok || IsProtectedPath(p)
}

// argPath is the path argument of a write or edit, if it can be read.
func argPath(args json.RawMessage) (string, bool) {
	var a struct {
		Path *string `json:"path"`
	}
	if err := json.Unmarshal(args, &a); err != nil || a.Path == nil {
		return "", false
	}
	return *a.Path, true
}
