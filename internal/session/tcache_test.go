package session

import (
	"strconv"
	"testing"
)

// The transcript cache keeps twice as many sessions as are drained at once,
// so a node running more than cachedSessions does not read them whole again.
func TestTranscriptCacheHoldsTheActiveSessions(t *testing.T) {
	c := newTranscriptCache(1000)
	for i := range 2000 {
		c.put(strconv.Itoa(i), &cachedTranscript{size: 1})
	}
	if len(c.entries) != 2000 {
		t.Fatalf("kept %d transcripts for 1000 active sessions, want 2000", len(c.entries))
	}
	if c := newTranscriptCache(10); c.keep != cachedSessions {
		t.Fatalf("a small node keeps %d, want %d", c.keep, cachedSessions)
	}
}
