package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rtcagent/rtcagent/client"
)

func call(t *testing.T, tools []client.Tool, name string, args any) (any, error) {
	t.Helper()
	b, _ := json.Marshal(args)
	for _, tl := range tools {
		if tl.Name == name {
			return tl.Run(context.Background(), b)
		}
	}
	t.Fatalf("no tool %s", name)
	return nil, nil
}

// TestFileToolsStayInside: the tools work inside the folder and refuse every
// path that leads outside it: "..", and symbolic links to outside.
func TestFileToolsStayInside(t *testing.T) {
	base := t.TempDir()
	dir, outside := filepath.Join(base, "proj"), filepath.Join(base, "outside")
	for _, d := range []string{dir, outside} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(outside, "secret.txt"), []byte("secret"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(outside, "secret.txt"), filepath.Join(dir, "file-link")); err != nil {
		t.Fatal(err)
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	tools := fileTools(root)

	if out, err := call(t, tools, "write_file", map[string]string{"path": "/notes/a.txt", "content": "hi"}); err != nil || !strings.Contains(out.(string), "wrote 2 bytes") {
		t.Fatalf("write: %v %v", out, err)
	}
	if out, err := call(t, tools, "read_file", map[string]string{"path": "notes/a.txt"}); err != nil || out != "hi" {
		t.Fatalf("read: %v %v", out, err)
	}
	if out, err := call(t, tools, "list_files", map[string]string{}); err != nil || out != "file-link\nlink\nnotes/\n" {
		t.Fatalf("list: %q %v", out, err)
	}
	for _, bad := range []struct {
		tool string
		args map[string]string
	}{
		{"read_file", map[string]string{"path": "../outside/secret.txt"}},
		{"read_file", map[string]string{"path": "link/secret.txt"}},
		{"read_file", map[string]string{"path": "file-link"}},
		{"list_files", map[string]string{"path": "link"}},
		{"list_files", map[string]string{"path": ".."}},
		{"write_file", map[string]string{"path": "link/new.txt", "content": "x"}},
		{"write_file", map[string]string{"path": "../outside/new.txt", "content": "x"}},
		{"write_file", map[string]string{"path": "file-link", "content": "x"}},
	} {
		if out, err := call(t, tools, bad.tool, bad.args); err == nil {
			t.Errorf("%s %v reached outside the folder: %v", bad.tool, bad.args, out)
		} else if strings.Contains(err.Error(), base) {
			t.Errorf("the error shows the folder's location: %v", err)
		}
	}
	entries, _ := os.ReadDir(outside)
	if len(entries) != 1 {
		t.Fatalf("outside holds %d files", len(entries))
	}
	if b, _ := os.ReadFile(filepath.Join(outside, "secret.txt")); string(b) != "secret" {
		t.Fatalf("the file outside changed: %q", b)
	}
}

// TestPathArgs: every file tool decodes its arguments and cleans its path the
// same way; a ".." that leads out of the folder is refused with a clear error
// before the folder is touched.
func TestPathArgs(t *testing.T) {
	for _, c := range []struct{ args, want string }{
		{`{}`, "."},
		{`{"path": "/"}`, "."},
		{`{"path": "/a/b.txt"}`, "a/b.txt"},
		{`{"path": "a//./b.txt"}`, "a/b.txt"},
		{`{"path": "a/../b.txt"}`, "b.txt"},
		{`{"path": "a\\b.txt"}`, "a/b.txt"},
	} {
		in, p, err := pathArgs(json.RawMessage(c.args))
		if err != nil || p != c.want {
			t.Errorf("%s: %q %v, want %q", c.args, p, err, c.want)
		}
		if c.args == `{"path": "/a/b.txt"}` && in.Path != "/a/b.txt" {
			t.Errorf("decoded path %q", in.Path)
		}
	}
	for _, c := range []struct{ args, want string }{
		{`{"path": ".."}`, "leads outside the project folder"},
		{`{"path": "../outside/secret.txt"}`, "path ../outside/secret.txt leads outside the project folder"},
		{`{"path": "/../x"}`, "leads outside"},
		{`{"path": "a/../../x"}`, "leads outside"},
		{`{"path": "..\\x"}`, "leads outside"},
		{`{"path": "a\u0000b"}`, "NUL byte"},
		{`{"path": 3}`, "bad arguments"},
		{`[1]`, "bad arguments"},
	} {
		if _, p, err := pathArgs(json.RawMessage(c.args)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %q %v, want an error with %q", c.args, p, err, c.want)
		}
	}
	// The tools give the model that error.
	root, err := os.OpenRoot(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	for _, name := range []string{"list_files", "read_file", "write_file"} {
		if _, err := call(t, fileTools(root), name, map[string]string{"path": "../x", "content": "x"}); err == nil || err.Error() != "path ../x leads outside the project folder" {
			t.Errorf("%s: %v", name, err)
		}
	}
}
