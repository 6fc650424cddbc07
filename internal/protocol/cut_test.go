package protocol

import (
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
)

// TestCut: what is cut stays within the limit, valid UTF-8, and says how much
// was left out; what fits is kept whole.
func TestCut(t *testing.T) {
	if got := Cut("short", 10); got != "short" {
		t.Fatalf("kept %q", got)
	}
	long := strings.Repeat("é", 1<<20) // 2 MiB, two bytes a rune
	for _, limit := range []int{1, 5, 31, 100, 1001, 256 << 10} {
		got := Cut(long, limit)
		if len(got) > limit || !utf8.ValidString(got) {
			t.Fatalf("limit %d: %d bytes, valid %v", limit, len(got), utf8.ValidString(got))
		}
		if limit >= 100 {
			head, note, ok := strings.Cut(got, "… [cut: ")
			if !ok || !strings.HasPrefix(long, head) || note != strconv.Itoa(len(long)-len(head))+" bytes more]" {
				t.Fatalf("limit %d: %q", limit, got[max(0, len(got)-40):])
			}
		}
	}
}
