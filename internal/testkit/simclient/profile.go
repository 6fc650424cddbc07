package simclient

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"sync"

	"github.com/rtcagent/rtcagent/internal/protocol"
)

// Profile is what a browser profile keeps across connections and page loads
// (IndexedDB in the browser SDK): its position in the user's Topic stream, the
// entities folded from the updates it applied, and the execution journal. A
// Client with a Profile applies updates strictly in offset order, fills gaps
// with v1.update.list, re-fetches open RTCs after every subscription, and
// executes each RTC at most once per Profile, across Client instances. One
// Client at a time should use a Profile (a page reload closes the old one first).
type Profile struct {
	mu      sync.Mutex
	epoch   string
	last    int64
	applied map[int64][]byte // offset → canonical update, to spot one offset with two contents
	buf     map[int64]protocol.Update
	ents    map[string]map[string]Entity // kind → id → latest state
	pending map[string]int               // rtc id → moves to pending applied
	journal map[string]*Execution
	errs    []error
	changed chan struct{}
}

// Entity is the latest state of one entity as the client folded it.
type Entity struct {
	Offset int64
	Data   json.RawMessage
}

// Execution is the journal entry of one RTC.
type Execution struct {
	Runs   int     // tool function invocations: more than 1 breaks at-most-once
	Result *Result // kept until the server acknowledged it (the outbox)
	Acked  bool
	Gone   bool         // the server answered not found: the session was deleted
	Answer protocol.RTC // the server's answer to the submission
	owner  *Client      // the client that started it; another one finds it interrupted
}

// NewProfile returns an empty profile (a fresh browser).
func NewProfile() *Profile {
	p := &Profile{applied: map[int64][]byte{}, buf: map[int64]protocol.Update{}, pending: map[string]int{},
		journal: map[string]*Execution{}, changed: make(chan struct{}), ents: map[string]map[string]Entity{}}
	for _, k := range []string{KindSession, KindTurn, KindMessage, KindRTC} {
		p.ents[k] = map[string]Entity{}
	}
	return p
}

// Entity kinds of Profile.Entities.
const (
	KindSession = "session"
	KindTurn    = "turn"
	KindMessage = "message"
	KindRTC     = "rtc"
)

func kindOf(typ string) string {
	switch typ {
	case protocol.UpdSessionCreated, protocol.UpdSessionUpdated:
		return KindSession
	case protocol.UpdTurnCreated, protocol.UpdTurnUpdated:
		return KindTurn
	case protocol.UpdMessageCreated, protocol.UpdMessageUpdated:
		return KindMessage
	case protocol.UpdRTCUpdated:
		return KindRTC
	}
	return ""
}

// canonical re-encodes JSON so that equal values compare equal as bytes.
func canonical(b []byte) []byte {
	var v any
	if json.Unmarshal(b, &v) != nil {
		return append([]byte(nil), b...)
	}
	out, _ := json.Marshal(v)
	return out
}

func (p *Profile) violate(err error) {
	p.errs = append(p.errs, err)
}

// offer takes one update from either path (Topic or v1.update.list). It
// returns the RTCs that became deliverable and whether a gap waits for a fill.
func (p *Profile) offer(u protocol.Update) (deliver []protocol.RTC, gap bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.epoch != "" && u.Epoch != p.epoch {
		p.violate(fmt.Errorf("epoch %q after %q at offset %d", u.Epoch, p.epoch, u.Offset))
		return nil, false
	}
	if u.Offset <= p.last {
		if prev, ok := p.applied[u.Offset]; ok && !bytes.Equal(prev, CanonicalUpdate(u)) {
			p.violate(fmt.Errorf("offset %d arrived with two contents", u.Offset))
		}
		return nil, false
	}
	if u.Offset > p.last+1 {
		p.buf[u.Offset] = u
		return nil, true
	}
	deliver = p.applyLocked(u, deliver)
	for {
		next, ok := p.buf[p.last+1]
		if !ok {
			break
		}
		delete(p.buf, next.Offset)
		deliver = p.applyLocked(next, deliver)
	}
	for off := range p.buf {
		if off <= p.last {
			delete(p.buf, off)
		}
	}
	return deliver, len(p.buf) > 0
}

// CanonicalUpdate is an update's changes, one "<type> <data>" line each: the
// form Applied returns.
func CanonicalUpdate(u protocol.Update) []byte {
	var b []byte
	for i, ch := range u.Changes {
		if i > 0 {
			b = append(b, '\n')
		}
		b = append(b, ch.Type+" "...)
		b = append(b, canonical(ch.Data)...)
	}
	return b
}

func (p *Profile) applyLocked(u protocol.Update, deliver []protocol.RTC) []protocol.RTC {
	p.last, p.epoch = u.Offset, u.Epoch
	p.applied[u.Offset] = CanonicalUpdate(u)
	if len(u.Changes) == 0 {
		p.violate(fmt.Errorf("update %d carries no change", u.Offset))
	}
	seen := map[string]bool{}
	for _, ch := range u.Changes {
		deliver = p.applyChange(u.Offset, ch, seen, deliver)
	}
	close(p.changed)
	p.changed = make(chan struct{})
	return deliver
}

// applyChange folds one entity of the update at offset in; seen holds the
// update's entities so far (each may appear once).
func (p *Profile) applyChange(offset int64, ch protocol.Change, seen map[string]bool, deliver []protocol.RTC) []protocol.RTC {
	kind := kindOf(ch.Type)
	if kind == "" {
		p.violate(fmt.Errorf("unknown update type %q at offset %d", ch.Type, offset))
		return deliver
	}
	var head struct {
		ID     string `json:"id"`
		Status string `json:"status"`
		Offset int64  `json:"offset"`
	}
	if err := json.Unmarshal(ch.Data, &head); err != nil || head.ID == "" {
		p.violate(fmt.Errorf("update %d: bad entity: %v", offset, err))
		return deliver
	}
	if head.Offset != offset {
		p.violate(fmt.Errorf("update %d carries an entity at offset %d", offset, head.Offset))
	}
	if seen[kind+"/"+head.ID] {
		p.violate(fmt.Errorf("update %d carries %s %s twice", offset, kind, head.ID))
	}
	seen[kind+"/"+head.ID] = true
	was := p.ents[kind][head.ID]
	p.ents[kind][head.ID] = Entity{Offset: offset, Data: append(json.RawMessage(nil), ch.Data...)}
	if kind == KindRTC && head.Status == protocol.RTCPending {
		// A delivery is a move to pending. A pending call updated as pending
		// (a server call decided again at its start, now asking) is handed to
		// the executor again, but it was delivered once.
		var prev struct {
			Status string `json:"status"`
		}
		if was.Data == nil || json.Unmarshal(was.Data, &prev) != nil || prev.Status != protocol.RTCPending {
			p.pending[head.ID]++
		}
		var r protocol.RTC
		if json.Unmarshal(ch.Data, &r) == nil {
			deliver = append(deliver, r)
		}
	}
	return deliver
}

// Position returns the epoch and the offset of the last applied update.
func (p *Profile) Position() (epoch string, last int64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.epoch, p.last
}

// Applied returns the canonical form (a "<type> <data>" line per change) of the
// update applied at offset, or nil.
func (p *Profile) Applied(offset int64) []byte {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.applied[offset]
}

// Entities returns a copy of the folded entities of one kind, by id.
func (p *Profile) Entities(kind string) map[string]Entity {
	p.mu.Lock()
	defer p.mu.Unlock()
	return maps.Clone(p.ents[kind])
}

// Deliveries returns how often each RTC moved to pending (was delivered).
func (p *Profile) Deliveries() map[string]int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return maps.Clone(p.pending)
}

// Journal returns a copy of the execution journal.
func (p *Profile) Journal() map[string]Execution {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := make(map[string]Execution, len(p.journal))
	for id, e := range p.journal {
		out[id] = *e
	}
	return out
}

// Err returns the protocol violations the profile saw.
func (p *Profile) Err() []error {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]error(nil), p.errs...)
}

// WaitTurn waits until the folded turn is terminal.
func (p *Profile) WaitTurn(ctx context.Context, turnID string) (protocol.Turn, error) {
	for {
		p.mu.Lock()
		e, ok := p.ents[KindTurn][turnID]
		ch := p.changed
		p.mu.Unlock()
		var tr protocol.Turn
		if ok && json.Unmarshal(e.Data, &tr) == nil && protocol.TurnTerminal(tr.Status) {
			return tr, nil
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return tr, fmt.Errorf("turn %s (%s): %w", turnID, tr.Status, ctx.Err())
		}
	}
}

// WaitOffset waits until the profile applied offset top.
func (p *Profile) WaitOffset(ctx context.Context, top int64) error {
	for {
		p.mu.Lock()
		last, ch := p.last, p.changed
		p.mu.Unlock()
		if last >= top {
			return nil
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return fmt.Errorf("at offset %d of %d: %w", last, top, ctx.Err())
		}
	}
}

// WaitEntity waits until a folded entity of kind satisfies match and returns
// it. match runs under the profile's lock, on every change: it must be quick
// and must not call the profile.
func (p *Profile) WaitEntity(ctx context.Context, kind string, match func(id string, e Entity) bool) (string, Entity, error) {
	for {
		p.mu.Lock()
		for id, e := range p.ents[kind] {
			if match(id, e) {
				p.mu.Unlock()
				return id, e, nil
			}
		}
		ch := p.changed
		p.mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
			return "", Entity{}, ctx.Err()
		}
	}
}
