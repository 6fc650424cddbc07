package core

import (
	"cmp"
	"errors"
	"slices"

	"github.com/rtcagent/rtcagent/internal/protocol"
	"github.com/rtcagent/rtcagent/internal/store"
)

// ForkSession starts a new session from a user message of another: the finished
// turns before that message are copied (messages, tool calls and their RTC
// outcomes, with new ids), the message itself is replaced by text (its own text
// when empty), and a turn for it starts. The source session is unchanged. A
// repeated client_id returns the first fork and writes nothing.
func ForkSession(tx store.Tx, c Caller, req *protocol.SessionForkRequest) (*protocol.MessageSendResult, error) {
	src, err := SessionFor(tx, c, req.SessionID)
	if err != nil {
		return nil, err
	}
	// Checked after reading the source, which in a write transaction waits for
	// the user's other writers: a fork with this client_id that committed
	// meanwhile is seen here, before anything is written.
	if prev, err := tx.MessageByClientID(c.UserID, req.ClientID); err == nil {
		return &protocol.MessageSendResult{SessionID: prev.SessionID, MessageID: prev.ID, TurnID: prev.TurnID}, nil
	} else if !errors.Is(err, store.ErrNotFound) {
		return nil, err
	}
	at, err := tx.MessageGet(req.MessageID)
	if err != nil || at.SessionID != src.ID {
		return nil, protocol.ErrNotFound("message", req.MessageID)
	}
	if at.Role != protocol.RoleUser {
		return nil, protocol.Errorf(protocol.CodeInvalidArgument, "fork from a user message; %q is an %s message", at.ID, at.Role)
	}
	text := req.Text
	if text == "" {
		text = at.Text
	}
	turns, err := tx.TurnList(src.ID, store.Page{Limit: 1 << 30})
	if err != nil {
		return nil, err
	}
	atTurn, err := tx.TurnGet(at.TurnID)
	if err != nil {
		return nil, err
	}
	dst := &protocol.Session{ID: NewID(), UserID: c.UserID, DeviceID: c.DeviceID, Title: TitleFrom(src.Title + " (fork)"),
		WorkMode: c.modeFor(src.WorkMode), Status: protocol.SessionOpen}
	if err := EmitSession(tx, dst, protocol.UpdSessionCreated); err != nil {
		return nil, err
	}
	// One read of the messages, grouped by turn: the copy costs O(messages).
	msgs, err := tx.MessageList(src.ID, store.Page{Limit: 1 << 30})
	if err != nil {
		return nil, err
	}
	byTurn := map[string][]protocol.Message{}
	for _, m := range msgs {
		byTurn[m.TurnID] = append(byTurn[m.TurnID], m)
	}
	// And one of the tool calls, grouped by turn in seq order.
	rtcs, err := tx.RTCListBySession(src.ID, "", 1<<30)
	if err != nil {
		return nil, err
	}
	rtcsByTurn := map[string][]protocol.RTC{}
	for _, r := range rtcs {
		rtcsByTurn[r.TurnID] = append(rtcsByTurn[r.TurnID], r)
	}
	cp := copier{tx: tx, dst: dst, msgIDs: map[string]string{}, turnIDs: map[string]string{}, rtcIDs: map[string]string{}, msgSeqs: map[int64]int64{}}
	for i := range turns {
		if turns[i].Seq < atTurn.Seq && protocol.TurnTerminal(turns[i].Status) {
			mine := rtcsByTurn[turns[i].ID]
			slices.SortStableFunc(mine, func(a, b protocol.RTC) int { return cmp.Compare(a.Seq, b.Seq) })
			if err := cp.turn(&turns[i], byTurn[turns[i].ID], mine); err != nil {
				return nil, err
			}
		}
	}
	send := &protocol.MessageSendRequest{ClientID: req.ClientID, SessionID: dst.ID, Content: protocol.MessageContent{Text: text}, Tools: atTurn.Tools, HostToolsOnly: atTurn.HostToolsOnly, Context: cp.context(at.Context)}
	res, err := SendMessage(tx, c, send)
	if err == nil && res.SessionID != dst.ID {
		// Another fork with this client_id committed after the check above (a
		// store that does not serialise the user's writers): roll this one back;
		// the caller's retry returns that fork.
		return nil, store.ErrDuplicate
	}
	return res, err
}

// copier copies finished turns into the fork, in order, with new ids.
type copier struct {
	tx      store.Tx
	dst     *protocol.Session
	turnSeq int64
	msgSeq  int64
	msgIDs  map[string]string
	turnIDs map[string]string
	rtcIDs  map[string]string
	msgSeqs map[int64]int64
}

// context is the message context mc as the fork's message carries it: the
// views' contexts name the fork's copies of their calls (those of turns the
// fork copied; the others are left out).
func (cp *copier) context(mc *protocol.MessageContext) *protocol.MessageContext {
	if mc == nil || len(mc.Views) == 0 {
		return mc
	}
	out := &protocol.MessageContext{AgentMD: mc.AgentMD}
	for _, v := range mc.Views {
		if id, ok := cp.rtcIDs[v.RTCID]; ok {
			out.Views = append(out.Views, protocol.ViewContext{RTCID: id, Text: v.Text})
		}
	}
	return out
}

// turn copies one turn with its messages (mine, in seq order) and its tool calls
// (rtcs, in seq order).
func (cp *copier) turn(src *protocol.Turn, mine []protocol.Message, rtcs []protocol.RTC) error {
	cp.turnSeq++
	t := *src
	t.ID, t.SessionID, t.UserID, t.Seq = NewID(), cp.dst.ID, cp.dst.UserID, cp.turnSeq
	cp.turnIDs[src.ID] = t.ID
	t.RetryOf, t.ClientID = cp.turnIDs[src.RetryOf], "" // the idempotency key stays with the source
	for _, m := range mine {
		cp.msgIDs[m.ID] = NewID()
	}
	// A retry's user message belongs to the turn it retries, copied before it.
	t.UserMessageID = cp.msgIDs[src.UserMessageID]
	if err := EmitTurn(cp.tx, &t, ""); err != nil {
		return err
	}
	for _, m := range mine {
		cp.msgSeq++
		cp.msgSeqs[m.Seq] = cp.msgSeq
		m.ID, m.SessionID, m.TurnID, m.UserID, m.Seq = cp.msgIDs[m.ID], cp.dst.ID, t.ID, cp.dst.UserID, cp.msgSeq
		m.Context = cp.context(m.Context) // its views' calls were copied before it
		if m.Role == protocol.RoleSummary {
			// The covered message was copied before the summary: same turn or earlier.
			m.SummaryOfSeq = cp.msgSeqs[m.SummaryOfSeq]
		}
		if err := EmitMessage(cp.tx, &m, "", ""); err != nil {
			return err
		}
	}
	for _, r := range rtcs {
		id := NewID()
		if parent, key, ok := viewCallOf(r.ToolCallID); ok && cp.rtcIDs[parent] != "" {
			// A view's call names the copy of the view's call (copied before
			// it: an earlier turn or a lower seq), and its id is derived from
			// that, so the copy's view finds it as the source's did.
			r.ToolCallID, id = ViewCallID(cp.rtcIDs[parent], key), ViewCallRTCID(cp.rtcIDs[parent], key)
		}
		cp.rtcIDs[r.ID] = id
		r.ID, r.SessionID, r.TurnID, r.UserID, r.MessageID = id, cp.dst.ID, t.ID, cp.dst.UserID, cp.msgIDs[r.MessageID]
		if err := insertCopy(cp.tx, &r); err != nil {
			return err
		}
	}
	return nil
}
