package client

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/rtcagent/rtcagent/internal/protocol"
)

// EventKind names what an Event reports.
type EventKind string

const (
	// EventText: Text is the next chunk of an assistant message as it streams.
	// Chunks may be missing (the live channel may lose some); EventMessage
	// follows with the whole text.
	EventText EventKind = "text"
	// EventMessage: an assistant message is final; Text is its whole text and
	// Status complete, interrupted or error.
	EventMessage EventKind = "message"
	// EventToolCall: the model called a tool (Call).
	EventToolCall EventKind = "tool_call"
	// EventToolResult: a call ended; Status is completed, failed, timeout or
	// rejected, with Output or Error.
	EventToolResult EventKind = "tool_result"
	// EventTurnEnd: the turn ended; Status is completed, failed or stopped, Error
	// the failure's message. It is the last event of a Reply.
	EventTurnEnd EventKind = "turn_end"
)

// Event is one step of a turn as it happens.
type Event struct {
	Kind      EventKind
	SessionID string
	TurnID    string
	MessageID string
	Text      string
	Call      *Call
	Status    string
	Output    json.RawMessage
	Error     string
}

// Reply follows the turn that answers one message.
type Reply struct {
	SessionID string
	MessageID string // the user message
	TurnID    string

	q      *queue[Event]
	out    chan Event
	closed bool
	// owned by the dispatcher
	seq   map[string]int64 // message → last delta seq passed on
	final map[string]bool  // messages whose final text was passed on
	calls map[string]bool  // rtc → call reported
	ended map[string]bool  // rtc → outcome reported
}

// Events returns the turn's events in order; the channel closes after
// EventTurnEnd (or when the client stops).
func (r *Reply) Events() <-chan Event { return r.out }

// Result is how a turn ended.
type Result struct {
	Status string // completed, failed, stopped
	Text   string // the final texts of the turn's assistant messages, in order
	Error  string
}

// Wait reads the remaining events until the turn ends.
func (r *Reply) Wait(ctx context.Context) (Result, error) {
	var res Result
	var texts []string
	for {
		select {
		case <-ctx.Done():
			return res, ctx.Err()
		case ev, ok := <-r.out:
			if !ok {
				if res.Status == "" {
					return res, errClosed
				}
				return res, nil
			}
			switch ev.Kind {
			case EventMessage:
				if ev.Text != "" {
					texts = append(texts, ev.Text)
				}
			case EventTurnEnd:
				res.Status, res.Error = ev.Status, ev.Error
				res.Text = strings.Join(texts, "\n\n")
			}
		}
	}
}

func (c *Client) newReply(sessionID, messageID, turnID string) *Reply {
	r := &Reply{SessionID: sessionID, MessageID: messageID, TurnID: turnID, q: newQueue[Event](), out: make(chan Event),
		seq: map[string]int64{}, final: map[string]bool{}, calls: map[string]bool{}, ended: map[string]bool{}}
	go func() {
		defer close(r.out)
		for {
			select {
			case <-r.q.ready:
			case <-c.done:
				return
			}
			for {
				ev, ok := r.q.pop()
				if !ok {
					break
				}
				select {
				case r.out <- ev:
				case <-c.done:
					return
				}
				if ev.Kind == EventTurnEnd {
					return
				}
			}
		}
	}()
	return r
}

// item is one input of the dispatcher: an entity change, a delta or a new Reply.
type item struct {
	change *protocol.Change
	delta  *protocol.Delta
	reg    *Reply
}

// dispatcher routes updates and deltas to the Replies of their turns. A Reply
// registered after its first events arrived gets them from the recent ones.
type dispatcher struct {
	in      *queue[item]
	recent  []item
	msgTurn map[string]string
	replies map[string]*Reply
}

const (
	recentItems = 4096
	maxMessages = 4096
)

func newDispatcher() *dispatcher {
	return &dispatcher{in: newQueue[item](), msgTurn: map[string]string{}, replies: map[string]*Reply{}}
}

func (d *dispatcher) push(it item) { d.in.push(it) }

func (d *dispatcher) loop(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-d.in.ready:
		}
		for {
			it, ok := d.in.pop()
			if !ok {
				break
			}
			if it.reg != nil {
				d.replies[it.reg.TurnID] = it.reg
				for _, old := range d.recent {
					if it.reg.closed {
						break
					}
					d.route(old, it.reg)
				}
				continue
			}
			if len(d.recent) == recentItems {
				copy(d.recent, d.recent[1:])
				d.recent = d.recent[:recentItems-1]
			}
			d.recent = append(d.recent, it)
			d.route(it, nil)
		}
	}
}

// route passes one item to its Reply (target, or the one of its turn).
func (d *dispatcher) route(it item, target *Reply) {
	pick := func(turnID string) *Reply {
		r := d.replies[turnID]
		if r == nil || (target != nil && r != target) || r.closed {
			return nil
		}
		return r
	}
	if dl := it.delta; dl != nil {
		if r := pick(d.msgTurn[dl.MessageID]); r != nil {
			r.text(dl)
		}
		return
	}
	u := it.change
	switch u.Type {
	case protocol.UpdMessageCreated, protocol.UpdMessageUpdated:
		var m protocol.Message
		if json.Unmarshal(u.Data, &m) != nil || m.Role != protocol.RoleAssistant {
			return
		}
		if _, known := d.msgTurn[m.ID]; !known {
			if len(d.msgTurn) >= maxMessages {
				clear(d.msgTurn)
			}
			d.msgTurn[m.ID] = m.TurnID
			// Deltas may arrive before the message that announces them.
			if r := pick(m.TurnID); r != nil {
				for _, old := range d.recent {
					if old.delta != nil && old.delta.MessageID == m.ID {
						r.text(old.delta)
					}
				}
			}
		}
		r := pick(m.TurnID)
		if r == nil || m.Status == protocol.MessageStreaming || r.final[m.ID] {
			return
		}
		r.final[m.ID] = true
		ev := Event{Kind: EventMessage, SessionID: m.SessionID, TurnID: m.TurnID, MessageID: m.ID, Text: m.Text, Status: m.Status}
		if m.Error != nil {
			ev.Error = m.Error.Message
		}
		r.q.push(ev)
	case protocol.UpdRTCUpdated:
		var x protocol.RTC
		if json.Unmarshal(u.Data, &x) != nil {
			return
		}
		r := pick(x.TurnID)
		if r == nil {
			return
		}
		call := &Call{ID: x.ID, SessionID: x.SessionID, TurnID: x.TurnID, Tool: x.ToolName, Args: x.Arguments}
		if !r.calls[x.ID] {
			r.calls[x.ID] = true
			r.q.push(Event{Kind: EventToolCall, SessionID: x.SessionID, TurnID: x.TurnID, MessageID: x.MessageID, Call: call, Status: x.Status})
		}
		if protocol.RTCTerminal(x.Status) && !r.ended[x.ID] {
			r.ended[x.ID] = true
			r.q.push(Event{Kind: EventToolResult, SessionID: x.SessionID, TurnID: x.TurnID, MessageID: x.MessageID, Call: call,
				Status: x.Status, Output: x.Output, Error: x.Error})
		}
	case protocol.UpdTurnCreated, protocol.UpdTurnUpdated:
		var t protocol.Turn
		if json.Unmarshal(u.Data, &t) != nil || !protocol.TurnTerminal(t.Status) {
			return
		}
		r := pick(t.ID)
		if r == nil {
			return
		}
		ev := Event{Kind: EventTurnEnd, SessionID: t.SessionID, TurnID: t.ID, Status: t.Status}
		if t.Error != nil {
			ev.Error = t.Error.Message
		}
		r.closed = true
		delete(d.replies, t.ID)
		r.q.push(ev)
	}
}

// text passes a chunk on once, in seq order.
func (r *Reply) text(dl *protocol.Delta) {
	if dl.Seq <= r.seq[dl.MessageID] || r.final[dl.MessageID] {
		return
	}
	r.seq[dl.MessageID] = dl.Seq
	r.q.push(Event{Kind: EventText, SessionID: dl.SessionID, TurnID: r.TurnID, MessageID: dl.MessageID, Text: dl.Delta})
}
