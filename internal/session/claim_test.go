package session

import (
	"context"
	"strconv"
	"testing"

	"github.com/rtcagent/rtcagent/internal/store"
	"github.com/rtcagent/rtcagent/internal/testkit/testsvc"
)

// A claim pass reads as many sessions with work as it has free drain slots,
// and claimAhead more to start as slots free, not one per slot of the node.
func TestClaimPassReadsForItsFreeSlots(t *testing.T) {
	st := &inboxLimits{Store: testsvc.SQLite(t)}
	r := New(Config{Store: st, Model: helloModel(t), Concurrency: 200})
	for range 190 {
		r.sem <- struct{}{} // busy drains
	}
	r.claim(t.Context())
	if got, want := st.limits, []int{10 + claimAhead}; len(got) != 1 || got[0] != want[0] {
		t.Fatalf("the pass read the inbox with limits %v, want %v", got, want)
	}
	for range 190 {
		<-r.sem
	}
	r.readInbox = true
	r.claim(t.Context())
	if got := st.limits[len(st.limits)-1]; got != 200 {
		t.Fatalf("with every slot free the pass read %d sessions, want the node's 200", got)
	}
}

// inboxLimits records the limit of each read of the sessions with work.
type inboxLimits struct {
	store.Store
	limits []int
}

func (s *inboxLimits) Read(ctx context.Context, fn func(tx store.Tx) error) error {
	return s.Store.Read(ctx, func(tx store.Tx) error { return fn(limitTx{tx, s}) })
}

type limitTx struct {
	store.Tx
	s *inboxLimits
}

func (t limitTx) InboxSessions(limit int) ([]string, error) {
	t.s.limits = append(t.s.limits, limit)
	return t.Tx.InboxSessions(limit)
}

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
	if c := newTranscriptCache(10); c.max != cachedSessions {
		t.Fatalf("a small node keeps %d, want %d", c.max, cachedSessions)
	}
}
