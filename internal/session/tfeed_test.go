package session

import (
	"encoding/json"
	"testing"

	"github.com/rtcagent/rtcagent/internal/protocol"
)

func feedUpdate(user, epoch string, off int64) protocol.Update {
	return protocol.Update{UserID: user, Epoch: epoch, Offset: off,
		Changes: []protocol.Change{{Type: protocol.UpdTurnUpdated, Data: json.RawMessage(`{}`)}}}
}

func offsets(ups []protocol.Update) []int64 {
	out := make([]int64, len(ups))
	for i, u := range ups {
		out[i] = u.Offset
	}
	return out
}

// The feed answers a span only when it holds every update of it, of the
// stream's epoch; commits that reach it out of order are put in order.
func TestCommitFeedSpans(t *testing.T) {
	f := newCommitFeed()
	f.add([]protocol.Update{feedUpdate("u", "e1", 3), feedUpdate("v", "e1", 9)})
	f.add([]protocol.Update{feedUpdate("u", "e1", 5)}) // 4's hook has not run yet
	if _, ok := f.span("u", "e1", 2, 5); ok {
		t.Fatal("a span with a gap (4) was answered")
	}
	f.add([]protocol.Update{feedUpdate("u", "e1", 4), feedUpdate("u", "e1", 4)})
	got, ok := f.span("u", "e1", 2, 5)
	if !ok || len(got) != 3 || got[0].Offset != 3 || got[2].Offset != 5 {
		t.Fatalf("span 3..5: %v %v", offsets(got), ok)
	}
	if got, ok := f.span("u", "e1", 3, 4); !ok || len(got) != 1 || got[0].Offset != 4 {
		t.Fatalf("span 4..4: %v %v", offsets(got), ok)
	}
	if _, ok := f.span("u", "e1", 1, 5); ok {
		t.Fatal("a span starting before the feed (2 was never added) was answered")
	}
	if _, ok := f.span("u", "e2", 2, 5); ok {
		t.Fatal("a span of another epoch was answered")
	}
	if _, ok := f.span("w", "e1", 0, 1); ok {
		t.Fatal("a user the feed never saw was answered")
	}
	// A new epoch (history reset) drops the old offsets.
	f.add([]protocol.Update{feedUpdate("u", "e2", 1)})
	if _, ok := f.span("u", "e1", 3, 4); ok {
		t.Fatal("the old epoch's updates survived a reset")
	}
	if got, ok := f.span("u", "e2", 0, 1); !ok || len(got) != 1 {
		t.Fatalf("the new epoch: %v %v", offsets(got), ok)
	}
}

// The feed keeps a user's latest updates and bounds its bytes: past a bound it
// answers less (the store is read), never wrongly.
func TestCommitFeedBounds(t *testing.T) {
	f := newCommitFeed()
	for off := int64(1); off <= feedPerUser+4; off++ {
		f.add([]protocol.Update{feedUpdate("u", "e", off)})
	}
	if _, ok := f.span("u", "e", 0, feedPerUser+4); ok {
		t.Fatal("more than feedPerUser updates were kept")
	}
	if got, ok := f.span("u", "e", 4, feedPerUser+4); !ok || len(got) != feedPerUser {
		t.Fatalf("the latest %d: %v %v", feedPerUser, offsets(got), ok)
	}
	big := feedUpdate("v", "e", 1)
	big.Changes[0].Data = make(json.RawMessage, feedBytes)
	f.add([]protocol.Update{big})
	if f.bytes != 0 || len(f.byUser) != 0 {
		t.Fatalf("past its byte bound the feed holds %d bytes of %d users", f.bytes, len(f.byUser))
	}
	// A committed update's published payload is not kept: the bound counts
	// its changes, and the feed reads nothing else.
	published := feedUpdate("w", "e", 1)
	published.Payload = make([]byte, feedBytes/2)
	f.add([]protocol.Update{published})
	if got, ok := f.span("w", "e", 0, 1); !ok || len(got) != 1 || got[0].Payload != nil {
		t.Fatalf("the feed keeps a payload: %v %v", ok, got)
	}
}

// The feed names the update that created a session (from the change's value,
// or its data when it carries none), of the stream's epoch only.
func TestCommitFeedFindsASessionsCreation(t *testing.T) {
	f := newCommitFeed()
	created := func(off int64, s *protocol.Session, withValue bool) protocol.Update {
		u := feedUpdate("u", "e1", off)
		data, _ := json.Marshal(s)
		ch := protocol.Change{Type: protocol.UpdSessionCreated, Data: data}
		if withValue {
			ch.Value = s
		}
		u.Changes = append(u.Changes, ch)
		return u
	}
	f.add([]protocol.Update{feedUpdate("u", "e1", 1), created(2, &protocol.Session{ID: "a"}, true),
		created(3, &protocol.Session{ID: "b"}, false), feedUpdate("u", "e1", 4)})
	if off, ok := f.created("u", "e1", "a"); !ok || off != 2 {
		t.Fatalf("session a: %d %v", off, ok)
	}
	if off, ok := f.created("u", "e1", "b"); !ok || off != 3 {
		t.Fatalf("session b (data only): %d %v", off, ok)
	}
	for _, c := range []struct{ user, epoch, session string }{{"u", "e1", "c"}, {"u", "e2", "a"}, {"v", "e1", "a"}} {
		if _, ok := f.created(c.user, c.epoch, c.session); ok {
			t.Errorf("found %+v", c)
		}
	}
}
