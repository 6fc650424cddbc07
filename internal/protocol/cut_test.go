package protocol

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestCut(t *testing.T) {
	if got := Cut("short", 10); got != "short" {
		t.Fatalf("under the limit: %q", got)
	}
	long := strings.Repeat("é", 1000) // 2000 bytes
	got := Cut(long, 100)
	if len(got) > 100 || !utf8.ValidString(got) || !strings.HasPrefix(got, "éé") {
		t.Fatalf("cut to %d bytes, valid %v: %q", len(got), utf8.ValidString(got), got)
	}
	kept := strings.Index(got, "\n[cut:")
	if want := CutNote(kept, 2000); !strings.HasSuffix(got, want) {
		t.Fatalf("note %q, want %q", got[kept:], want)
	}
	if got := Cut(long, 5); len(got) > 5 || !utf8.ValidString(got) {
		t.Fatalf("a limit smaller than the note: %q", got)
	}
}

func TestCutArgs(t *testing.T) {
	raw := []byte(`{"path":"/a","content":"` + strings.Repeat("x", 1<<20) + `"}`)
	got := CutArgs(raw, 64)
	var s string
	if err := json.Unmarshal(got, &s); err != nil {
		t.Fatalf("cut arguments are not a JSON string: %v", err)
	}
	if !strings.HasPrefix(s, `{"path":"/a","content":"xxx`) || !strings.HasSuffix(s, CutNote(64, len(raw))) || len(got) > 200 {
		t.Fatalf("cut arguments: %s", got)
	}
}
