package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"sort"
	"strings"

	"github.com/rtcagent/rtcagent/client"
)

// maxReadBytes bounds what read_file returns.
const maxReadBytes = 256 << 10

// fileTools are read_file, write_file and list_files, confined to one
// directory: every path is resolved inside root (os.Root), so neither "..",
// absolute paths nor symbolic links reach anything outside it.
func fileTools(root *os.Root) []client.Tool {
	return []client.Tool{
		{
			Name:        "list_files",
			Description: "Lists a directory of the user's project folder: one entry per line, directories end with /.",
			Schema:      json.RawMessage(`{"type":"object","properties":{"path":{"type":"string","description":"directory relative to the project folder; default the folder itself"}}}`),
			Run: func(_ context.Context, args json.RawMessage) (any, error) {
				_, p, err := pathArgs(args)
				if err != nil {
					return nil, err
				}
				d, err := root.Open(p)
				if err != nil {
					return nil, plain(err)
				}
				defer d.Close()
				entries, err := d.ReadDir(-1)
				if err != nil {
					return nil, plain(err)
				}
				sort.Slice(entries, func(i, j int) bool { return entries[i].Name() < entries[j].Name() })
				var b strings.Builder
				for _, e := range entries {
					b.WriteString(e.Name())
					if e.IsDir() {
						b.WriteString("/")
					}
					b.WriteString("\n")
				}
				return b.String(), nil
			},
		},
		{
			Name:        "read_file",
			Description: "Reads a text file of the user's project folder (at most 256 KiB).",
			Schema:      json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}`),
			Run: func(_ context.Context, args json.RawMessage) (any, error) {
				in, p, err := pathArgs(args)
				if err != nil {
					return nil, err
				}
				f, err := root.Open(p)
				if err != nil {
					return nil, plain(err)
				}
				defer f.Close()
				b, err := io.ReadAll(io.LimitReader(f, maxReadBytes+1))
				if err != nil {
					return nil, plain(err)
				}
				if len(b) > maxReadBytes {
					return nil, fmt.Errorf("%s is larger than %d bytes", in.Path, maxReadBytes)
				}
				return string(b), nil
			},
		},
		{
			Name:        "write_file",
			Description: "Writes a text file of the user's project folder, creating missing directories; replaces the file if it exists.",
			Schema:      json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"},"content":{"type":"string"}},"required":["path","content"]}`),
			Run: func(_ context.Context, args json.RawMessage) (any, error) {
				in, p, err := pathArgs(args)
				if err != nil {
					return nil, err
				}
				if p == "." {
					return nil, errors.New("path names the folder itself, not a file")
				}
				if dir := path.Dir(p); dir != "." {
					if err := root.MkdirAll(dir, 0o755); err != nil {
						return nil, plain(err)
					}
				}
				if err := root.WriteFile(p, []byte(in.Content), 0o644); err != nil {
					return nil, plain(err)
				}
				return fmt.Sprintf("wrote %d bytes to %s", len(in.Content), p), nil
			},
		},
	}
}

// fileArgs are the arguments of the file tools (Content only for write_file).
type fileArgs struct {
	Path    string `json:"path"`
	Content string `json:"content"`
}

// pathArgs decodes a file tool's arguments and returns them with the path made
// relative to the folder ("/a" is "a", "" is "."). A path whose ".." leads out
// of the folder is refused here with a clear error; os.Root refuses the rest
// (a symbolic link that leads outside) when the path is used.
func pathArgs(args json.RawMessage) (fileArgs, string, error) {
	var in fileArgs
	if err := json.Unmarshal(args, &in); err != nil {
		return in, "", fmt.Errorf("bad arguments: %v", err)
	}
	if strings.ContainsRune(in.Path, 0) {
		return in, "", errors.New("path contains a NUL byte")
	}
	p := path.Clean(strings.TrimLeft(strings.ReplaceAll(in.Path, "\\", "/"), "/"))
	if p == ".." || strings.HasPrefix(p, "../") {
		return in, "", fmt.Errorf("path %s leads outside the project folder", in.Path)
	}
	return in, p, nil
}

// plain drops the folder's location from errors the model sees.
func plain(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return fmt.Errorf("%s %s: %v", pe.Op, pe.Path, pe.Err)
	}
	return err
}
