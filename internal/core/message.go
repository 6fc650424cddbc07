package core

import (
	"cmp"
	"errors"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/rtcagent/rtcagent/internal/protocol"
	"github.com/rtcagent/rtcagent/internal/store"
)

// SendMessage stores a user message and its turn. The turn starts at once when the
// session is idle; otherwise it waits, queued, for the active turn to end. A
// repeated client_id returns the first result and changes nothing.
// The request must have been validated (see api).
func SendMessage(tx store.Tx, c Caller, req *protocol.MessageSendRequest) (*protocol.MessageSendResult, error) {
	if req.SessionID != "" {
		// Read with the session, under its stream's lock: the seqs, the
		// message's key, and the session's lease and inbox for its adoption.
		tx.Prefetch(store.Prefetch{TurnSeq: req.SessionID, MessageSeq: req.SessionID,
			ClientUser: c.UserID, ClientID: req.ClientID, Adopt: req.SessionID})
		if _, err := tx.SessionGet(req.SessionID); err != nil && !errors.Is(err, store.ErrNotFound) {
			return nil, err
		}
	}
	if prev, err := tx.MessageByClientID(c.UserID, req.ClientID); err == nil {
		return &protocol.MessageSendResult{SessionID: prev.SessionID, MessageID: prev.ID, TurnID: prev.TurnID}, nil
	} else if !errors.Is(err, store.ErrNotFound) {
		return nil, err
	}

	sess, err := sessionForMessage(tx, c, req)
	if err != nil {
		return nil, err
	}
	turnSeq, err := tx.TurnMaxSeq(sess.ID)
	if err != nil {
		return nil, err
	}
	msgSeq, err := tx.MessageMaxSeq(sess.ID)
	if err != nil {
		return nil, err
	}
	turn := &protocol.Turn{ID: NewID(), SessionID: sess.ID, UserID: c.UserID, Seq: turnSeq + 1, Status: protocol.TurnQueued, Tools: req.Tools,
		HostToolsOnly: req.HostToolsOnly}
	msg := &protocol.Message{ID: NewID(), SessionID: sess.ID, TurnID: turn.ID, UserID: c.UserID, Seq: msgSeq + 1,
		Role: protocol.RoleUser, Text: req.Content.Text, Status: protocol.MessageComplete}
	if req.Context != nil && (req.Context.AgentMD != "" || len(req.Context.Views) > 0) {
		views, err := viewContexts(tx, c, sess.ID, req.Context.Views)
		if err != nil {
			return nil, err
		}
		msg.Context = &protocol.MessageContext{AgentMD: req.Context.AgentMD, Views: views}
	}
	turn.UserMessageID = msg.ID
	if err := EmitMessage(tx, msg, "", req.ClientID); err != nil {
		return nil, err
	}
	if err := EmitTurn(tx, turn, ""); err != nil {
		return nil, err
	}
	// Always queue a start, also while another turn is active: deciding "the session
	// is busy, its ending turn will start this one" from a read that may predate that
	// turn's end (PostgreSQL, READ COMMITTED) could lose the wake-up. The worker drops
	// the start when another turn is active; ending that turn queues this one again.
	if err := tx.InboxInsert(&store.InboxItem{SessionID: sess.ID, Kind: KindTurnStart, TurnID: turn.ID}); err != nil {
		return nil, err
	}
	return &protocol.MessageSendResult{SessionID: sess.ID, MessageID: msg.ID, TurnID: turn.ID}, nil
}

func sessionForMessage(tx store.Tx, c Caller, req *protocol.MessageSendRequest) (*protocol.Session, error) {
	if req.WorkMode != "" {
		if err := c.CheckMode(req.WorkMode); err != nil {
			return nil, err
		}
	}
	id := req.SessionID
	if id == "" && req.NewSessionID != "" {
		if _, err := tx.SessionGet(req.NewSessionID); err == nil {
			id = req.NewSessionID
		} else if !errors.Is(err, store.ErrNotFound) {
			return nil, err
		}
	}
	if id == "" {
		mode := req.WorkMode
		if mode == "" {
			mode = c.modeFor(protocol.ModeEdit)
		}
		s := &protocol.Session{ID: cmp.Or(req.NewSessionID, NewID()), UserID: c.UserID, DeviceID: c.DeviceID, Title: TitleFrom(req.Content.Text),
			WorkMode: mode, Status: protocol.SessionOpen}
		return s, EmitSession(tx, s, protocol.UpdSessionCreated)
	}
	s, err := SessionForDevice(tx, c, id)
	if err != nil {
		return nil, err
	}
	if s.Status == protocol.SessionClosed {
		return nil, protocol.Errorf(protocol.CodeConflict, "session %q is closed; open it before sending", s.ID)
	}
	mode := req.WorkMode
	if mode == "" {
		mode = c.modeFor(s.WorkMode) // a mode the site no longer allows ends here
	}
	if mode != s.WorkMode {
		s.WorkMode = mode
		if err := EmitSession(tx, s, protocol.UpdSessionUpdated); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// TitleFrom makes a session title from the first message: its first line, at most
// 60 characters.
func TitleFrom(text string) string {
	line := strings.TrimSpace(text)
	if i := strings.IndexByte(line, '\n'); i >= 0 {
		line = strings.TrimSpace(line[:i])
	}
	if utf8.RuneCountInString(line) > 60 {
		r := []rune(line)
		line = string(r[:57]) + "..."
	}
	if line == "" {
		line = "New session"
	}
	return line
}

// viewContexts checks that each view context names a call of this user's
// session sessionID whose view was shown (the call ran), once, and names its
// tool.
func viewContexts(tx store.RTCs, c Caller, sessionID string, in []protocol.ViewContext) ([]protocol.ViewContext, error) {
	var out []protocol.ViewContext
	for i, v := range in {
		if slices.ContainsFunc(in[:i], func(o protocol.ViewContext) bool { return o.RTCID == v.RTCID }) {
			return nil, protocol.Errorf(protocol.CodeInvalidArgument, "context.views[%d] names a view named before: one context a view", i)
		}
		r, err := tx.RTCGet(v.RTCID)
		if errors.Is(err, store.ErrNotFound) || (err == nil && (r.UserID != c.UserID || r.SessionID != sessionID || r.App == "" || !ViewShown(r))) {
			return nil, protocol.Errorf(protocol.CodeInvalidArgument, "context.views[%d].rtc_id names no tool view of this chat", i)
		}
		if err != nil {
			return nil, err
		}
		out = append(out, protocol.ViewContext{RTCID: v.RTCID, Tool: r.ToolName, Text: v.Text})
	}
	return out, nil
}

// ViewShown reports whether the page showed the view of call r: the call
// ran (the page shows it from then on, also after the call timed out). A
// fork's copy of a call that timed out keeps no record of having started:
// its source's was checked when the context was first sent.
func ViewShown(r *protocol.RTC) bool {
	switch r.Status {
	case protocol.RTCExecuting, protocol.RTCCompleted, protocol.RTCFailed:
		return true
	case protocol.RTCTimeout:
		return r.Audit == nil || r.Audit.StartedAt != nil
	}
	return false
}
