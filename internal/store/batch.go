package store

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/rtcagent/rtcagent/internal/protocol"
)

// Batch is the Topic updates of one write transaction. The entity changes a
// transaction makes for a user gather in one open update, at one offset; the
// store writes it when it is sealed: at commit, or before the transaction
// resets that user's history. An entity written again joins the open
// update as its latest state, in the place of its first change, and keeps
// "created" as its type when it was created here.
type Batch struct {
	Updates []protocol.Update // sealed and open, in the order their offsets were taken
	open    map[string]*openUpdate
	sent    sentJSON // the entity whose row was just written, as it is sent (Sent)
}

// sentJSON is an entity (a pointer), the JSON it is sent as and, when the
// store keeps one, its decoded copy (Decoded).
type sentJSON struct {
	v     any
	raw   []byte
	value protocol.Keyed
}

// Sent notes raw, the JSON the entity v is sent as, encoded with the row just
// written: the change of v (the same pointer) added next takes it instead of
// encoding v again. The next note or change, of v or not, forgets it, so it
// holds only while v is unchanged between its row and its change, as every
// emitter writes them. In tests Add checks it against v's own encoding. A v
// that is no pointer, or a nil raw (v did not encode: the change encodes it
// and fails), notes nothing.
func (b *Batch) Sent(v protocol.Keyed, raw []byte) {
	b.sent = sentJSON{}
	if t := reflect.TypeOf(v); raw != nil && t != nil && t.Kind() == reflect.Pointer {
		b.sent = sentJSON{v: v, raw: raw}
	}
}

// Decoded adds value to the note of Sent when it is v's: a copy of v as its
// stored JSON decodes, which the store keeps as its row's and no one changes.
// The change of v added next carries it as its Value instead of a copy of its
// own; in tests Add checks it against that copy.
func (b *Batch) Decoded(v, value protocol.Keyed) {
	if b.sent.v != nil && b.sent.v == any(v) {
		b.sent.value = value
	}
}

// encoded is data's JSON: the note of Sent when it is data's, or its
// encoding; and the decoded copy noted with it, if any.
func (b *Batch) encoded(data any) ([]byte, protocol.Keyed, error) {
	n := b.sent
	b.sent = sentJSON{}
	// n.v is a pointer (Sent): comparing it with data compares pointers, or
	// types, and cannot panic.
	if n.v == nil || n.v != data {
		raw, err := encode(data)
		return raw, nil, err
	}
	if testing.Testing() {
		if want, err := encode(data); err != nil || !bytes.Equal(want, n.raw) {
			return nil, nil, fmt.Errorf("store: %T changed after its row was written: sent as %s, now %s (%v)", data, n.raw, want, err)
		}
	}
	return n.raw, n.value, nil
}

type openUpdate struct {
	i    int            // index in Updates
	keys map[string]int // entity key → index in Changes
}

// Open returns the user's open update as it stands.
func (b *Batch) Open(userID string) (protocol.Update, bool) {
	if o := b.open[userID]; o != nil {
		u := b.Updates[o.i]
		u.Changes = slices.Clone(u.Changes)
		return u, true
	}
	return protocol.Update{}, false
}

// Add adds a change to the user's open update, or opens one at offset next
// with epoch. It reports whether it opened one (the caller raises the
// stream's top to next) and returns the update as it stands.
func (b *Batch) Add(userID, epoch string, next int64, typ string, data any) (protocol.Update, bool, error) {
	raw, value, err := b.encoded(data)
	if err != nil {
		return protocol.Update{}, false, fmt.Errorf("marshal %s: %w", typ, err)
	}
	o, opened := b.open[userID], false
	if o == nil {
		if b.open == nil {
			b.open = map[string]*openUpdate{}
		}
		o, opened = &openUpdate{i: len(b.Updates)}, true
		b.open[userID] = o
		b.Updates = append(b.Updates, protocol.Update{Offset: next, Epoch: epoch, UserID: userID})
	}
	u := &b.Updates[o.i]
	k, ok := data.(protocol.Keyed)
	if !ok {
		u.Changes = append(u.Changes, protocol.Change{Type: typ, Data: raw})
		return *u, opened, nil
	}
	if value == nil {
		value = CloneAsDecoded(k)
	} else if testing.Testing() {
		if want := CloneAsDecoded(k); !reflect.DeepEqual(value, want) {
			return protocol.Update{}, false, fmt.Errorf("store: %T is kept decoded as %+v, a copy of it is %+v", data, value, want)
		}
	}
	key := k.TopicKey()
	if j, seen := o.keys[key]; seen {
		c := &u.Changes[j]
		if !strings.HasSuffix(c.Type, ".created") {
			c.Type = typ
		}
		c.Data, c.Value = raw, value
		return *u, opened, nil
	}
	if o.keys == nil {
		o.keys = map[string]int{}
	}
	o.keys[key] = len(u.Changes)
	u.Changes = append(u.Changes, protocol.Change{Type: typ, Data: raw, Value: value})
	return *u, opened, nil
}

// Seal closes the user's open update, if any, and hands it with its payload to
// write; later changes open another update.
func (b *Batch) Seal(userID string, write func(u protocol.Update, payload []byte) error) error {
	o := b.open[userID]
	if o == nil {
		return nil
	}
	delete(b.open, userID)
	u := &b.Updates[o.i]
	payload, err := EncodeUpdate(*u)
	if err != nil {
		return err
	}
	u.Payload = payload
	return write(*u, payload)
}

// SealAll seals every open update, in the order they were opened (at commit).
func (b *Batch) SealAll(write func(u protocol.Update, payload []byte) error) error {
	for _, u := range b.Updates {
		if o := b.open[u.UserID]; o != nil && b.Updates[o.i].Offset == u.Offset {
			if err := b.Seal(u.UserID, write); err != nil {
				return err
			}
		}
	}
	return nil
}

// encode is json.Marshal(data) without its second pass over what a
// MarshalJSON method returns (compacting and escaping it again): the
// entities' methods return encoding/json's own output, which is compact and
// escaped already. Only for entities: another Marshaler's output (a
// json.RawMessage) would go unchecked.
func encode(data any) ([]byte, error) {
	if m, ok := data.(json.Marshaler); ok {
		if v := reflect.ValueOf(data); v.Kind() != reflect.Pointer || !v.IsNil() {
			return m.MarshalJSON()
		}
	}
	return json.Marshal(data)
}
