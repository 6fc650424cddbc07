package session

import (
	"encoding/json"
	"sync"

	"github.com/rtcagent/rtcagent/internal/protocol"
)

// Bounds of the commit feed.
const (
	feedPerUser = 16       // a user's latest updates kept
	feedUsers   = 4096     // users kept; past it the feed starts over
	feedBytes   = 32 << 20 // entity bytes kept; past it the feed starts over
)

// commitFeed keeps the latest Topic updates this process committed, per user,
// so a cached transcript catches up from memory instead of reading back from
// the store what this process has just written. It only ever holds committed
// updates (the store's commit hook hands them over), whole, as stored; an
// update committed elsewhere (another node) is missing from it, and a catch-up
// that finds a gap reads the store as before.
type commitFeed struct {
	mu     sync.Mutex
	bytes  int
	byUser map[string][]protocol.Update // sorted by offset
}

func newCommitFeed() *commitFeed {
	return &commitFeed{byUser: map[string][]protocol.Update{}}
}

// add keeps committed updates. Commit hooks of one user's transactions may run
// out of commit order: each update goes in its place by offset.
func (f *commitFeed) add(ups []protocol.Update) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, u := range ups {
		list := f.byUser[u.UserID]
		if len(list) > 0 && list[0].Epoch != u.Epoch {
			f.drop(u.UserID) // a new history: the old offsets mean nothing
			list = nil
		}
		i := len(list)
		for i > 0 && list[i-1].Offset > u.Offset {
			i--
		}
		if i > 0 && list[i-1].Offset == u.Offset {
			continue
		}
		list = append(list, protocol.Update{})
		copy(list[i+1:], list[i:])
		u.Payload = nil // what was published; the feed reads the changes
		list[i] = u
		f.bytes += updateBytes(u)
		if len(list) > feedPerUser {
			f.bytes -= updateBytes(list[0])
			list = list[1:]
		}
		f.byUser[u.UserID] = list
	}
	if f.bytes > feedBytes || len(f.byUser) > feedUsers {
		f.byUser, f.bytes = map[string][]protocol.Update{}, 0
	}
}

func (f *commitFeed) drop(userID string) {
	for _, u := range f.byUser[userID] {
		f.bytes -= updateBytes(u)
	}
	delete(f.byUser, userID)
}

// span returns the user's updates after offset `after` up to `upTo`, of epoch,
// when the feed holds every one of them.
func (f *commitFeed) span(userID, epoch string, after, upTo int64) ([]protocol.Update, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	list := f.byUser[userID]
	if len(list) == 0 || list[0].Epoch != epoch {
		return nil, false
	}
	out := make([]protocol.Update, 0, upTo-after)
	for _, u := range list {
		if u.Offset > after && u.Offset <= upTo {
			if u.Offset != after+int64(len(out))+1 {
				return nil, false
			}
			out = append(out, u)
		}
	}
	return out, int64(len(out)) == upTo-after
}

// created is the offset of the user's update, of epoch, that created the
// session, when the feed holds it. Nothing of the session comes before that
// update: its transcript is what that update and the later ones hold of it.
func (f *commitFeed) created(userID, epoch, sessionID string) (int64, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	list := f.byUser[userID]
	if len(list) == 0 || list[0].Epoch != epoch {
		return 0, false
	}
	for _, u := range list {
		for _, ch := range u.Changes {
			if ch.Type == protocol.UpdSessionCreated && changedSession(ch) == sessionID {
				return u.Offset, true
			}
		}
	}
	return 0, false
}

// changedSession is the id of the session a session change carries.
func changedSession(ch protocol.Change) string {
	if s, ok := ch.Value.(*protocol.Session); ok {
		return s.ID
	}
	var s struct {
		ID string `json:"id"`
	}
	_ = json.Unmarshal(ch.Data, &s)
	return s.ID
}

func updateBytes(u protocol.Update) int {
	n := 64
	for _, ch := range u.Changes {
		n += len(ch.Data) + len(ch.Type)
	}
	return n
}
