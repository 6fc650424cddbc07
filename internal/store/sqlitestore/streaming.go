package sqlitestore

import (
	"bytes"
	"encoding/json"
	"slices"

	"github.com/rtcagent/rtcagent/internal/protocol"
)

// knownStreaming are sessions' streaming messages, in seq order, and
// knownMessageSeqs messages' seqs ("<id>"), as the writer last committed
// them. Like knownSeqs they are true while this store is the database's one
// writer: messages are written only by MessageInsert and MessageUpdate, a
// message's seq never changes and no message is deleted. A session's list
// is known from its insert (a new session has no message), so a turn's end
// reads its streaming messages (MessagesStreaming) without a statement.
// In tests every answer from them is checked against the database.
type (
	knownStreaming   map[string][]streamingMsg
	knownMessageSeqs map[string]int64
)

// streamingMsg is a streaming message as knownStreaming lists it: its
// stored data, shared and never changed in place.
type streamingMsg struct {
	id, turn string
	seq      int64
	data     []byte
}

func sameStreaming(a, b []streamingMsg) bool {
	return slices.EqualFunc(a, b, func(x, y streamingMsg) bool {
		return x.id == y.id && x.turn == y.turn && x.seq == y.seq && sameBytes(x.data, y.data)
	})
}

// streamingOf returns the session's streaming messages as this transaction
// sees them, if known.
func (t *tx) streamingOf(sessionID string) ([]streamingMsg, bool) {
	if l, ok := t.streaming[sessionID]; ok {
		return l, true
	}
	return fromMemory(t, t.knownStreaming, sessionID, func(n *notes) *noted[string, []streamingMsg] { return &n.streaming })
}

// messageSeq returns the message's seq, if known.
func (t *tx) messageSeq(id string) (int64, bool) {
	if n, ok := t.msgSeqs[id]; ok {
		return n, true
	}
	return fromMemory(t, t.knownMsgSeqs, id, func(n *notes) *noted[string, int64] { return &n.msgSeqs })
}

func (t *tx) noteStreaming(sessionID string, l []streamingMsg) {
	if t.streaming == nil {
		t.streaming = map[string][]streamingMsg{}
	}
	t.streaming[sessionID] = l
}

// messageWritten keeps the session's known streaming messages and the
// message's seq in step with m, as written (data) by this transaction.
func (t *tx) messageWritten(m *protocol.Message, data []byte) {
	if t.msgSeqs == nil {
		t.msgSeqs = map[string]int64{}
	}
	t.msgSeqs[m.ID] = m.Seq
	l, ok := t.streamingOf(m.SessionID)
	if !ok {
		return
	}
	i := slices.IndexFunc(l, func(s streamingMsg) bool { return s.id == m.ID })
	streaming := m.Status == protocol.MessageStreaming
	if i < 0 && !streaming {
		return
	}
	l = slices.Clone(l)
	if i >= 0 {
		l = slices.Delete(l, i, i+1)
	}
	if streaming {
		i := len(l)
		for i > 0 && l[i-1].seq > m.Seq {
			i--
		}
		l = slices.Insert(l, i, streamingMsg{id: m.ID, turn: m.TurnID, seq: m.Seq, data: data})
	}
	t.noteStreaming(m.SessionID, l)
}

// MessagesStreaming returns the turn's streaming messages (store.Messages):
// from the writer's memory when it knows the session's and the seq of the
// turn's user message.
func (t *tx) MessagesStreaming(tr *protocol.Turn) ([]protocol.Message, error) {
	if !t.Writable {
		return t.Shared.MessagesStreaming(tr)
	}
	l, ok := t.streamingOf(tr.SessionID)
	after := int64(0)
	if ok && tr.UserMessageID != "" {
		after, ok = t.messageSeq(tr.UserMessageID)
	}
	if !ok {
		return t.Shared.MessagesStreaming(tr)
	}
	answers := func(s streamingMsg) bool { return s.seq > after && s.turn == tr.ID }
	out, err := decodeStreaming(l, answers)
	if err != nil {
		return nil, err
	}
	// The check compares the list it answered from (the caller may change
	// the messages it returns before a prepared run's check runs) with the
	// database's answer, as JSON.
	read := func(q querier) ([]streamingMsg, error) {
		msgs, err := t.on(q).Shared.MessagesStreaming(tr)
		return []streamingMsg{{data: encoded(msgs)}}, err
	}
	same := func(stored, known []streamingMsg) bool {
		answered, err := decodeStreaming(known, answers)
		return err == nil && bytes.Equal(stored[0].data, encoded(answered))
	}
	if err := checkKnown(t, "the streaming messages of turn", tr.ID, l, read, same); err != nil {
		return nil, err
	}
	return out, nil
}

// decodeStreaming decodes the messages of l that keep reports.
func decodeStreaming(l []streamingMsg, keep func(streamingMsg) bool) ([]protocol.Message, error) {
	var out []protocol.Message
	for _, s := range l {
		if !keep(s) {
			continue
		}
		var m protocol.Message
		if err := json.Unmarshal(s.data, &m); err != nil {
			return nil, err
		}
		out = append(out, m)
	}
	return out, nil
}

// encoded is ms as JSON, to compare lists of messages (tests); no message
// and an empty list encode alike.
func encoded(ms []protocol.Message) []byte {
	if len(ms) == 0 {
		return []byte("[]")
	}
	b, _ := json.Marshal(ms)
	return b
}
