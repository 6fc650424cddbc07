package agui

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/rtcagent/rtcagent/internal/protocol"
)

// maxBuffered bounds the Live chunks kept for a message whose Topic update
// has not arrived yet; past it the message's text is sent whole at its end.
const maxBuffered = 256

// run turns one thread's Topic updates and Live chunks into a run's AG-UI
// events. It follows the thread until the thread is idle (no active turn, and
// the turn it acts on, if any, has ended) or waits for a call of the
// client's, then finishes the run. Every entity is applied only in a newer
// state than the one applied (its offset), so updates read from the store and
// received from the feed may overlap.
type run struct {
	emit      func(v any) error
	threadID  string
	runID     string
	sessionID string
	turn      string // the turn the run acts on (its message's, or its results'), or ""

	session *protocol.Session
	turns   map[string]*protocol.Turn
	msgs    map[string]*msgState
	calls   map[string]*callState
	order   []string         // call ids in the order they were shown
	applied map[string]int64 // entity key → offset of the state applied
	step    int              // the step started and not finished, or 0
	last    *protocol.Turn   // the latest turn that ended during the run
	done    bool
}

type msgState struct {
	status   string // "" until its Topic update arrived
	started  bool   // TEXT_MESSAGE_START sent
	ended    bool
	sent     string // the text sent so far
	seq      int64  // the last Live chunk applied
	gap      bool   // a chunk was missed: the rest is sent at the end
	buffered []protocol.Delta
}

type callState struct {
	shown    bool // the client has the call (sent in this run or known before)
	resulted bool // the client has its end
	waiting  bool // delivered to the client and not ended
	answered bool // the client's result (or the person's answer) was submitted by this run
	// interrupt is what the call waits for from the person, or nil.
	interrupt *Interrupt
}

// newRun starts a run that acted on turnID (or none) and answered the calls
// answered.
func newRun(emit func(any) error, in *RunInput, sessionID, turnID string, answered []string) *run {
	r := &run{emit: emit, threadID: in.ThreadID, runID: in.RunID, sessionID: sessionID, turn: turnID,
		turns: map[string]*protocol.Turn{}, msgs: map[string]*msgState{}, calls: map[string]*callState{}, applied: map[string]int64{}}
	for _, id := range answered {
		r.call(id).answered = true
	}
	return r
}

// newer reports whether e is newer than what was applied of it, and notes it.
func (r *run) newer(e protocol.Keyed, offset int64) bool {
	k := e.TopicKey()
	if prev, ok := r.applied[k]; ok && offset <= prev {
		return false
	}
	r.applied[k] = offset
	return true
}

// start sends RUN_STARTED and what the client lacks of the thread as read from
// the store before the run acted: a MESSAGES_SNAPSHOT when its conversation
// differs, the calls it does not know, and the text streamed so far (partial).
func (r *run) start(in *RunInput, s *state, partial func(messageID string) (string, int64)) error {
	if err := r.emit(runStarted{Type: evRunStarted, ThreadID: r.threadID, RunID: r.runID, ProtocolVersion: ProtocolVersion}); err != nil {
		return err
	}
	if s.session == nil {
		return r.check()
	}
	r.session = s.session
	r.newer(s.session, s.session.Offset)
	// The client shows the thread as it is, with the message it sends now.
	conv := conversation(in.Messages)
	if _, ok := in.newUserMessage(); ok && s.sent == nil {
		conv = conv[:len(conv)-1]
	}
	snap := !slices.Equal(conv, s.conversation())
	if snap {
		if err := r.emit(messagesSnapshot{Type: evMessagesSnapshot, Messages: s.snapshot()}); err != nil {
			return err
		}
	}
	// The calls the client has, and those it has the results of.
	known, results := map[string]bool{}, map[string]bool{}
	for _, m := range in.Messages {
		for _, c := range m.ToolCalls {
			known[c.ID] = true
		}
		results[m.ToolCallID] = m.Role == "tool"
	}
	for _, t := range []*protocol.Turn{s.active, s.turn} {
		if t != nil && r.newer(t, t.Offset) {
			if err := r.applyTurn(t); err != nil {
				return err
			}
		}
	}
	for i := range s.messages {
		m := &s.messages[i]
		r.newer(m, m.Offset)
		st := r.msg(m.ID)
		st.status = m.Status
		if m.Role == protocol.RoleAssistant && m.Status == protocol.MessageStreaming {
			text, seq := partial(m.ID)
			st.seq = seq
			if err := r.text(m.ID, st, text); err != nil {
				return err
			}
			continue
		}
		st.started, st.ended = true, true
		for j := range s.rtcs[m.ID] {
			c := &s.rtcs[m.ID][j]
			r.newer(c, c.Offset)
			if snap && asked(c) || known[c.ID] {
				cs := r.call(c.ID)
				cs.shown = true
				cs.resulted = protocol.RTCTerminal(c.Status) && (snap || results[c.ID])
			}
			if err := r.applyRTC(c); err != nil {
				return err
			}
		}
	}
	return r.check()
}

func (r *run) msg(id string) *msgState {
	st := r.msgs[id]
	if st == nil {
		st = &msgState{}
		r.msgs[id] = st
	}
	return st
}

func (r *run) call(id string) *callState {
	cs := r.calls[id]
	if cs == nil {
		cs = &callState{}
		r.calls[id] = cs
		r.order = append(r.order, id)
	}
	return cs
}

// update applies one Topic update in the order a client shows it: a step that
// starts, then its messages and calls, then how the turn stands (a step's
// end, the turn's end) and the session, so that text ends before the calls it
// asked for and everything is sent before the run can finish.
func (r *run) update(u *protocol.Update) error {
	var ch changes
	for _, c := range u.Changes {
		if err := r.decode(&ch, c); err != nil {
			return err
		}
	}
	for _, t := range ch.turns {
		if err := r.startStep(t); err != nil {
			return err
		}
	}
	for _, m := range ch.messages {
		if err := r.applyMessage(m); err != nil {
			return err
		}
	}
	for _, c := range ch.rtcs {
		if err := r.applyRTC(c); err != nil {
			return err
		}
	}
	for _, t := range ch.turns {
		if err := r.applyTurn(t); err != nil {
			return err
		}
	}
	if ch.session != nil {
		r.session = ch.session
	}
	return r.check()
}

// changes are an update's entities of the run's thread, newer than applied.
type changes struct {
	turns    []*protocol.Turn
	messages []*protocol.Message
	rtcs     []*protocol.RTC
	session  *protocol.Session
}

func (r *run) decode(ch *changes, c protocol.Change) error {
	kind, _, _ := strings.Cut(c.Type, ".")
	switch kind {
	case "message":
		var m protocol.Message
		if err := json.Unmarshal(c.Data, &m); err != nil {
			return err
		}
		if m.SessionID == r.sessionID && m.Role == protocol.RoleAssistant && r.newer(&m, m.Offset) {
			ch.messages = append(ch.messages, &m)
		}
	case "rtc":
		var x protocol.RTC
		if err := json.Unmarshal(c.Data, &x); err != nil {
			return err
		}
		if x.SessionID == r.sessionID && r.newer(&x, x.Offset) {
			ch.rtcs = append(ch.rtcs, &x)
		}
	case "turn":
		var t protocol.Turn
		if err := json.Unmarshal(c.Data, &t); err != nil {
			return err
		}
		if t.SessionID == r.sessionID && r.newer(&t, t.Offset) {
			ch.turns = append(ch.turns, &t)
		}
	case "session":
		var s protocol.Session
		if err := json.Unmarshal(c.Data, &s); err != nil {
			return err
		}
		if s.ID == r.sessionID && r.newer(&s, s.Offset) {
			ch.session = &s
		}
	}
	return nil
}

func (r *run) applyMessage(m *protocol.Message) error {
	st := r.msg(m.ID)
	st.status = m.Status
	switch m.Status {
	case protocol.MessageStreaming:
		buffered := st.buffered
		st.buffered = nil
		for _, d := range buffered {
			if err := r.delta(&d); err != nil {
				return err
			}
		}
	case protocol.MessageComplete, protocol.MessageInterrupted:
		return r.endText(m.ID, st, m.Text)
	}
	return nil
}

// delta applies one Live chunk of a streaming message, in order; a chunk that
// arrives before its message's Topic update waits for it.
func (r *run) delta(d *protocol.Delta) error {
	if d.SessionID != r.sessionID || d.Kind != "text" {
		return nil
	}
	st := r.msg(d.MessageID)
	switch {
	case st.status == "":
		if len(st.buffered) < maxBuffered {
			st.buffered = append(st.buffered, *d)
		} else {
			st.gap = true
		}
		return nil
	case st.status != protocol.MessageStreaming || st.gap || d.Seq <= st.seq:
		return nil
	case d.Seq != st.seq+1:
		st.gap = true
		return nil
	}
	st.seq = d.Seq
	return r.text(d.MessageID, st, d.Delta)
}

// text sends more of a message's text, starting the message first.
func (r *run) text(id string, st *msgState, s string) error {
	if s == "" || st.ended {
		return nil
	}
	if !st.started {
		st.started = true
		if err := r.emit(textStart{Type: evTextStart, MessageID: id, Role: "assistant"}); err != nil {
			return err
		}
	}
	st.sent += s
	return r.emit(textContent{Type: evTextContent, MessageID: id, Delta: s})
}

// endText sends what the client lacks of a finished message's text and ends it.
func (r *run) endText(id string, st *msgState, final string) error {
	if st.ended {
		return nil
	}
	if rest, ok := strings.CutPrefix(final, st.sent); ok {
		if err := r.text(id, st, rest); err != nil {
			return err
		}
	}
	st.ended = true
	if !st.started {
		return nil
	}
	return r.emit(textEnd{Type: evTextEnd, MessageID: id})
}

// applyRTC shows a call once it is delivered or ended, and its end: a server
// call's result, or why a client call ended without the client's result.
func (r *run) applyRTC(c *protocol.RTC) error {
	if !asked(c) {
		return nil
	}
	cs := r.call(c.ID)
	cs.interrupt = interruptOf(c)
	if nested(c) {
		return nil // a question within a call: only its interrupt is shown
	}
	cs.waiting = c.Executor == protocol.RTCExecutorBrowser && !protocol.RTCTerminal(c.Status)
	if !cs.shown {
		cs.shown = true
		if st := r.msgs[c.MessageID]; st != nil && st.started && !st.ended {
			st.ended = true
			if err := r.emit(textEnd{Type: evTextEnd, MessageID: c.MessageID}); err != nil {
				return err
			}
		}
		if err := r.emit(toolCallStart{Type: evToolCallStart, ToolCallID: c.ID, ToolCallName: c.ToolName, ParentMessageID: c.MessageID}); err != nil {
			return err
		}
		if len(c.Arguments) > 0 {
			if err := r.emit(toolCallArgs{Type: evToolCallArgs, ToolCallID: c.ID, Delta: string(c.Arguments)}); err != nil {
				return err
			}
		}
		if err := r.emit(toolCallEnd{Type: evToolCallEnd, ToolCallID: c.ID}); err != nil {
			return err
		}
	}
	if !protocol.RTCTerminal(c.Status) || cs.resulted {
		return nil
	}
	cs.resulted = true
	if c.Executor == protocol.RTCExecutorBrowser && strings.HasPrefix(c.ClientID, resultPrefix) {
		return nil // the client's own result: it has it
	}
	m := resultMessage(c)
	return r.emit(toolCallResult{Type: evToolCallResult, MessageID: m.ID, ToolCallID: c.ID, Content: m.Content, Role: "tool"})
}

// startStep starts a step when a turn runs and none is open (Step counts the
// steps taken).
func (r *run) startStep(t *protocol.Turn) error {
	if t.Status != protocol.TurnRunning || r.step != 0 {
		return nil
	}
	r.step = t.Step + 1
	return r.emit(step{Type: evStepStarted, StepName: stepName(r.step)})
}

// applyTurn ends the step a turn took or left, and notes the turn's end.
func (r *run) applyTurn(t *protocol.Turn) error {
	prev := r.turns[t.ID]
	r.turns[t.ID] = t
	if r.step != 0 && (t.Step >= r.step || t.Status != protocol.TurnRunning) {
		if err := r.endStep(); err != nil {
			return err
		}
	}
	if protocol.TurnTerminal(t.Status) && (prev == nil || !protocol.TurnTerminal(prev.Status)) {
		r.last = t
	}
	return r.startStep(t)
}

func stepName(n int) string { return fmt.Sprintf("step %d", n) }

func (r *run) endStep() error {
	if r.step == 0 {
		return nil
	}
	n := r.step
	r.step = 0
	return r.emit(step{Type: evStepFinished, StepName: stepName(n)})
}

// waiting are the client's calls delivered and not ended, in order.
func (r *run) waiting() []string {
	var ids []string
	for _, id := range r.order {
		if cs := r.calls[id]; cs.waiting && !cs.answered {
			ids = append(ids, id)
		}
	}
	return ids
}

// interrupts are what the thread waits for from the person, in order.
func (r *run) interrupts() []Interrupt {
	var ins []Interrupt
	for _, id := range r.order {
		if cs := r.calls[id]; cs.interrupt != nil && !cs.answered {
			ins = append(ins, *cs.interrupt)
		}
	}
	return ins
}

// check finishes the run when the thread waits for the person or the client,
// or is idle.
func (r *run) check() error {
	if r.done {
		return nil
	}
	if ins := r.interrupts(); len(ins) > 0 {
		return r.finish(outcome{Type: "interrupt", Interrupts: ins})
	}
	if w := r.waiting(); len(w) > 0 {
		return r.finish(outcome{Type: "success", PendingToolCallIDs: w})
	}
	if r.session != nil && r.session.ActiveTurnID != "" {
		return nil
	}
	if t := r.turns[r.turn]; r.turn != "" && (t == nil || !protocol.TurnTerminal(t.Status)) {
		return nil
	}
	switch t := r.last; {
	case t == nil:
	case t.Status == protocol.TurnFailed:
		e := runError{Type: evRunError, Message: "the turn failed", Code: "turn_failed"}
		if t.Error != nil {
			e.Message, e.Code = t.Error.Message, t.Error.Category
		}
		return r.finish(e)
	case t.Status == protocol.TurnStopped:
		return r.finish(outcome{Type: "cancelled"})
	}
	return r.finish(outcome{Type: "success"})
}

// finish ends what is open and sends the run's end: end, a RUN_ERROR, or
// the outcome of a RUN_FINISHED.
func (r *run) finish(end any) error {
	r.done = true
	for id, st := range r.msgs {
		if st.started && !st.ended {
			st.ended = true
			if err := r.emit(textEnd{Type: evTextEnd, MessageID: id}); err != nil {
				return err
			}
		}
	}
	if err := r.endStep(); err != nil {
		return err
	}
	if out, ok := end.(outcome); ok {
		end = runFinished{Type: evRunFinished, ThreadID: r.threadID, RunID: r.runID, Outcome: out}
	}
	return r.emit(end)
}

// resync applies the thread as read again from the store after the feed was
// lost: whatever changed meanwhile is newer than what was applied. A message
// that streamed meanwhile is sent whole at its end.
func (r *run) resync(s *state) error {
	if s.session != nil && r.newer(s.session, s.session.Offset) {
		r.session = s.session
	}
	for i := range s.messages {
		m := &s.messages[i]
		if m.Role == protocol.RoleAssistant && r.newer(m, m.Offset) {
			if st := r.msg(m.ID); st.status == protocol.MessageStreaming {
				st.gap = true
			}
			if err := r.applyMessage(m); err != nil {
				return err
			}
		}
		for j := range s.rtcs[m.ID] {
			if c := &s.rtcs[m.ID][j]; r.newer(c, c.Offset) {
				if err := r.applyRTC(c); err != nil {
					return err
				}
			}
		}
	}
	for _, t := range []*protocol.Turn{s.active, s.turn} {
		if t != nil && r.newer(t, t.Offset) {
			if err := r.applyTurn(t); err != nil {
				return err
			}
		}
	}
	return r.check()
}
