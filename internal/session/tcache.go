package session

import (
	"cmp"
	"container/list"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"sync"

	"github.com/rtcagent/rtcagent/internal/agent"
	"github.com/rtcagent/rtcagent/internal/protocol"
	"github.com/rtcagent/rtcagent/internal/store"
)

// Bounds of the transcript cache.
const (
	cachedBytes = 64 << 20 // the transcripts' text, tool arguments and results, and a share for each item (sizeOf)
	maxCatchUp  = 512      // updates applied to bring one up to date; beyond, it is read again
)

// transcriptCache keeps the transcripts of recently run sessions. A step brings
// its session's transcript up to date from the user's Topic updates since it was
// last read, instead of reading every turn, message and RTC again: every change
// to those entities commits together with an update carrying the whole entity.
// The updates this process committed come from memory (commitFeed); only the
// others (another node's) are read from the store.
// When the updates are gone (history pruned or reset), too many, or a summary
// was completed (the part worth keeping changes), the transcript is read again.
//
// A session is drained by one goroutine of this process at a time, so an entry
// is used by one step at a time; the transcript a step got must not be used after
// the session's next load. A transcript is read, never written through: an
// entity taken from a commit of this process shares its slices, maps and
// pointers with the value the commit carried, which the store keeps as that
// row's (protocol.Change.Value).
//
// It keeps as many transcripts as cachedBytes holds, however many sessions
// that is, and lets go of the one used longest ago first.
type transcriptCache struct {
	feed    *commitFeed // updates this process committed: a catch-up reads the store only for the rest
	mu      sync.Mutex
	bytes   int                      // sum of the entries' sizes
	entries map[string]*list.Element // of lru, by session
	lru     list.List                // of *cachedTranscript, used last at the front
}

type cachedTranscript struct {
	sessionID string
	userID    string
	epoch     string
	top       int64 // the user's stream offset the transcript reflects
	size      int   // bytes of text, tool arguments and results
	tr        agent.Transcript
}

func newTranscriptCache() *transcriptCache {
	return &transcriptCache{feed: newCommitFeed(), entries: map[string]*list.Element{}}
}

// remove takes the session's entry out of the cache, under mu; nil when
// there is none.
func (c *transcriptCache) remove(sessionID string) *cachedTranscript {
	el := c.entries[sessionID]
	if el == nil {
		return nil
	}
	e := c.lru.Remove(el).(*cachedTranscript)
	delete(c.entries, sessionID)
	c.bytes -= e.size
	return e
}

// load returns the session's transcript as of tx's snapshot.
func (c *transcriptCache) load(tx store.Tx, sessionID, userID string) (agent.Transcript, error) {
	e, err := c.take(tx, sessionID, userID)
	if err != nil {
		return agent.Transcript{}, err
	}
	c.put(sessionID, e)
	return e.tr, nil
}

// take returns the session's transcript as of tx, out of the cache: put returns
// it once what tx read is known to be committed (in a write transaction: after
// its commit; dropped when it rolled back, so the cache never holds what did not
// commit). In a write transaction tx must hold the user's stream lock (it read
// the session), so no other writer changes the transcript meanwhile.
func (c *transcriptCache) take(tx store.Tx, sessionID, userID string) (*cachedTranscript, error) {
	pos, err := tx.StreamGet(userID)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	e := c.remove(sessionID) // out of the cache while it changes; put back by put
	c.mu.Unlock()
	if e == nil {
		e = c.created(sessionID, userID, pos.Epoch)
	}
	// The store's history is read up to its last stored update; this
	// transaction's own open update is folded from memory.
	open, isOpen := tx.UpdateOpen(userID)
	stored := storedTop(pos, open, isOpen)
	if e != nil && e.catchUp(tx, c.feed, sessionID, userID, pos, stored, open, isOpen) {
		metricTranscripts.WithLabelValues("cache").Inc()
	} else {
		e = &cachedTranscript{sessionID: sessionID, userID: userID}
		if err := loadTranscript(tx, sessionID, &e.tr); err != nil {
			return nil, err
		}
		metricTranscripts.WithLabelValues("store").Inc()
	}
	e.epoch, e.top, e.size = pos.Epoch, stored, sizeOf(e.tr)
	return e, nil
}

// takeCommitted is take without a transaction, at pos, the store's position
// of the user's stream as of its last commit (store.Positions): the cached
// transcript caught up from this process's commits, or nil (the entry is
// dropped when it could not catch up: a read loads it again).
func (c *transcriptCache) takeCommitted(sessionID, userID string, pos store.StreamPos) *cachedTranscript {
	c.mu.Lock()
	e := c.remove(sessionID)
	c.mu.Unlock()
	if e == nil {
		e = c.created(sessionID, userID, pos.Epoch)
	}
	if e == nil || !e.catchUp(nil, c.feed, sessionID, userID, pos, pos.Top, protocol.Update{}, false) {
		return nil
	}
	metricTranscripts.WithLabelValues("cache").Inc()
	e.epoch, e.top, e.size = pos.Epoch, pos.Top, sizeOf(e.tr)
	return e
}

// created is an empty transcript of a session this process created, as of
// the update before the one that created it (commitFeed.created), for
// catchUp to bring up to date from the feed; nil when the feed does not
// hold that update.
func (c *transcriptCache) created(sessionID, userID, epoch string) *cachedTranscript {
	off, ok := c.feed.created(userID, epoch, sessionID)
	if !ok {
		return nil
	}
	return &cachedTranscript{sessionID: sessionID, userID: userID, epoch: epoch, top: off - 1}
}

// put keeps a transcript that take returned.
func (c *transcriptCache) put(sessionID string, e *cachedTranscript) {
	if e.size > cachedBytes/4 {
		return // too large to keep: read whole at every step
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.remove(sessionID) // not expected: one step at a time
	e.sessionID = sessionID
	c.entries[sessionID] = c.lru.PushFront(e)
	c.bytes += e.size
	for c.bytes > cachedBytes {
		c.remove(c.lru.Back().Value.(*cachedTranscript).sessionID)
	}
}

// sizeOf approximates the memory a transcript holds by its variable-length parts.
func sizeOf(tr agent.Transcript) int {
	n := 0
	for i := range tr.Messages {
		m := &tr.Messages[i]
		n += len(m.Text) + 256
		for _, tc := range m.ToolCalls {
			n += len(tc.Arguments)
		}
		if m.Context != nil {
			n += len(m.Context.AgentMD)
			for _, v := range m.Context.Views {
				n += len(v.Text) + len(v.RTCID) + len(v.Tool)
			}
		}
	}
	for i := range tr.RTCs {
		n += len(tr.RTCs[i].Output) + len(tr.RTCs[i].Error) + len(tr.RTCs[i].Arguments) + 256
	}
	return n + 256*len(tr.Turns)
}

// catchUp applies the updates after e.top (from the feed when it holds them
// all, else from the store through tx, when there is one), the transaction's
// own open one last; false means the transcript must be read again.
func (e *cachedTranscript) catchUp(tx store.Stream, feed *commitFeed, sessionID, userID string, pos store.StreamPos, stored int64, open protocol.Update, isOpen bool) bool {
	if e.userID != userID || e.epoch != pos.Epoch || e.top < pos.Floor || e.top > pos.Top || pos.Top-e.top > maxCatchUp {
		return false
	}
	if e.top > stored {
		return false
	}
	var ups []protocol.Update
	if stored > e.top {
		var ok bool
		if ups, ok = feed.span(userID, pos.Epoch, e.top, stored); !ok {
			if tx == nil { // no transaction to read the rest from
				return false
			}
			metricCatchUps.WithLabelValues("store").Inc()
			var err error
			ups, _, err = tx.UpdateList(userID, e.top, int(stored-e.top), 0)
			if err != nil || int64(len(ups)) != stored-e.top {
				return false
			}
		} else {
			metricCatchUps.WithLabelValues("feed").Inc()
		}
	}
	if isOpen {
		ups = append(ups, open)
	}
	for _, u := range ups {
		for _, ch := range u.Changes {
			if !e.fold(ch, sessionID) {
				return false
			}
		}
	}
	// Entities are created in the order of their seq, so appending keeps the order;
	// a transcript that is not in order is read again rather than trusted.
	tr := &e.tr
	return slices.IsSortedFunc(tr.Turns, func(a, b protocol.Turn) int { return cmp.Compare(a.Seq, b.Seq) }) &&
		slices.IsSortedFunc(tr.Messages, func(a, b protocol.Message) int { return cmp.Compare(a.Seq, b.Seq) })
}

// storedTop is the offset of the user's last stored update: the top, or the one
// before the transaction's open update. A transcript cached at it reads the
// open update again once committed, whole (folding is idempotent).
func storedTop(pos store.StreamPos, open protocol.Update, isOpen bool) int64 {
	if isOpen && open.Offset == pos.Top {
		return pos.Top - 1
	}
	return pos.Top
}

// fold applies one entity change to the transcript; false means it must be
// read again.
func (e *cachedTranscript) fold(ch protocol.Change, sessionID string) bool {
	tr := &e.tr
	i := 0
	switch ch.Type {
	case protocol.UpdTurnCreated, protocol.UpdTurnUpdated:
		tr.Turns, i = upsert(tr.Turns, ch, sessionID, func(t *protocol.Turn) (string, string) { return t.SessionID, t.ID })
	case protocol.UpdMessageCreated, protocol.UpdMessageUpdated:
		tr.Messages, i = upsert(tr.Messages, ch, sessionID, func(m *protocol.Message) (string, string) { return m.SessionID, m.ID })
		if i >= 0 && tr.Messages[i].Role == protocol.RoleSummary && tr.Messages[i].Status == protocol.MessageComplete {
			return false
		}
	case protocol.UpdRTCUpdated:
		tr.RTCs, i = upsert(tr.RTCs, ch, sessionID, func(r *protocol.RTC) (string, string) { return r.SessionID, r.ID })
	}
	return i != badData
}

// badData is upsert's index for data that does not decode.
const badData = -2

// upsert takes the change's entity into a new T (the one this process
// committed, its parts shared, else decoded); when it belongs to the session
// it replaces the element with its id, or is appended. It returns the element's
// index, -1 for another session's entity, badData when its data does not
// decode. Lists are searched from the end, where changes happen.
func upsert[T any](list []T, ch protocol.Change, sessionID string, key func(*T) (session, id string)) ([]T, int) {
	var v T
	if p, ok := any(ch.Value).(*T); ok {
		sess, _ := key(p)
		if sess != sessionID {
			return list, -1
		}
		v = *p
	} else if err := json.Unmarshal(ch.Data, &v); err != nil {
		return list, badData
	}
	sess, id := key(&v)
	if sess != sessionID {
		return list, -1
	}
	for i := len(list) - 1; i >= 0; i-- {
		if _, lid := key(&list[i]); lid == id {
			list[i] = v
			return list, i
		}
	}
	return append(list, v), len(list)
}

// verifyTranscript checks a cached transcript against one read from the store: both
// must give the model the same request.
func verifyTranscript(tx transcriptReads, t *protocol.Turn, cached agent.Transcript, resultLimit int) error {
	var fresh agent.Transcript
	if err := loadTranscript(tx, t.SessionID, &fresh); err != nil {
		return err
	}
	want := agent.BuildMessages(fresh, t.Seq, resultLimit)
	if got := agent.BuildMessages(cached, t.Seq, resultLimit); !reflect.DeepEqual(got, want) {
		return fmt.Errorf("transcript cache: session %s turn %s: %d cached messages, %d read", t.SessionID, t.ID, len(got), len(want))
	}
	return nil
}
