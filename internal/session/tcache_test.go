package session

import (
	"strconv"
	"strings"
	"testing"
)

// The transcript cache keeps as many sessions as its bytes hold, however
// many that is (a node past its active sessions reads no transcript whole
// again), and lets go of the one used longest ago first.
func TestTranscriptCacheIsBoundByBytes(t *testing.T) {
	c := newTranscriptCache()
	for i := range 20000 {
		c.put(strconv.Itoa(i), &cachedTranscript{size: 1})
	}
	if len(c.entries) != 20000 || c.bytes != 20000 {
		t.Fatalf("kept %d transcripts of %d bytes, want all 20000", len(c.entries), c.bytes)
	}

	c = newTranscriptCache()
	quarter := cachedBytes / 4
	for _, id := range []string{"a", "b", "c", "d"} {
		c.put(id, &cachedTranscript{size: quarter})
	}
	c.mu.Lock()
	a := c.remove("a") // a step takes it and puts it back: used last
	c.mu.Unlock()
	c.put("a", a)
	c.put("e", &cachedTranscript{size: quarter})
	var kept []string
	for el := c.lru.Front(); el != nil; el = el.Next() {
		kept = append(kept, el.Value.(*cachedTranscript).sessionID)
	}
	if got := strings.Join(kept, " "); got != "e a d c" || c.bytes != cachedBytes || len(c.entries) != 4 {
		t.Fatalf("kept %q (%d bytes, %d entries), want \"e a d c\": b was used longest ago", got, c.bytes, len(c.entries))
	}
	c.put("big", &cachedTranscript{size: quarter + 1})
	if _, ok := c.entries["big"]; ok || len(c.entries) != 4 {
		t.Fatal("a transcript over a quarter of the cache was kept")
	}
}
