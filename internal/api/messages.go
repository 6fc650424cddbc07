package api

import (
	"context"
	"encoding/json"
	"errors"
	"strconv"
	"unicode/utf8"

	"github.com/rtcagent/rtcagent/internal/core"
	"github.com/rtcagent/rtcagent/internal/protocol"
	"github.com/rtcagent/rtcagent/internal/store"
	"github.com/rtcagent/rtcagent/internal/tools"
)

func (a *API) messageSend(ctx context.Context, c core.Caller, params json.RawMessage) (any, error) {
	var req protocol.MessageSendRequest
	if err := decode(params, &req); err != nil {
		return nil, err
	}
	return a.send(ctx, c, &req)
}

// SendMessage is v1.message.send for callers inside the server, which may name
// a new session's id (MessageSendRequest.NewSessionID). The error is a
// *protocol.Error.
func (a *API) SendMessage(ctx context.Context, c core.Caller, req *protocol.MessageSendRequest) (*protocol.MessageSendResult, *protocol.Error) {
	if perr := checkCaller(c); perr != nil {
		return nil, perr
	}
	res, err := a.send(ctx, c, req)
	if err != nil {
		return nil, a.toError(protocol.MethodMessageSend, err)
	}
	return res, nil
}

func (a *API) send(ctx context.Context, c core.Caller, req *protocol.MessageSendRequest) (*protocol.MessageSendResult, error) {
	if err := a.checkID("client_id", req.ClientID); err != nil {
		return nil, err
	}
	if req.SessionID != "" {
		if err := a.checkID("session_id", req.SessionID); err != nil {
			return nil, err
		}
	}
	switch {
	case req.Content.Text == "":
		return nil, protocol.Errorf(protocol.CodeInvalidArgument, "content.text is required")
	case len(req.Content.Text) > a.lim.MessageTextBytes:
		return nil, protocol.Errorf(protocol.CodeTooLarge, "content.text is %d bytes, more than the limit of %d", len(req.Content.Text), a.lim.MessageTextBytes)
	case !utf8.ValidString(req.Content.Text):
		return nil, protocol.Errorf(protocol.CodeInvalidArgument, "content.text must be UTF-8")
	case req.WorkMode != "" && !protocol.ValidWorkMode(req.WorkMode):
		return nil, protocol.Errorf(protocol.CodeInvalidArgument, "work_mode %q: one of manual, edit, plan, bypass", req.WorkMode)
	}
	if err := tools.ValidateHostTools(req.Tools, a.lim); err != nil {
		return nil, err
	}
	if err := a.checkContext(req.Context); err != nil {
		return nil, err
	}
	if err := a.allowSend(c); err != nil {
		return nil, err
	}
	var res *protocol.MessageSendResult
	send := func(tx store.Tx) error {
		var err error
		res, err = core.SendMessage(tx, c, req)
		return err
	}
	err := a.write(ctx, send)
	if errors.Is(err, store.ErrDuplicate) {
		// A concurrent send with the same client_id committed first: this one now
		// finds it and answers with its result.
		err = a.write(ctx, send)
	}
	return res, err
}

// checkContext bounds what the page sends along with a message.
func (a *API) checkContext(mc *protocol.MessageContext) error {
	switch {
	case mc == nil:
		return nil
	case len(mc.AgentMD) > a.lim.AgentMDBytes:
		return protocol.Errorf(protocol.CodeTooLarge, "context.agent_md is %d bytes, more than the limit of %d", len(mc.AgentMD), a.lim.AgentMDBytes)
	case !utf8.ValidString(mc.AgentMD):
		return protocol.Errorf(protocol.CodeInvalidArgument, "context.agent_md must be UTF-8")
	case len(mc.Views) > protocol.MaxViewContexts:
		return protocol.Errorf(protocol.CodeTooLarge, "context.views holds %d views, more than the limit of %d", len(mc.Views), protocol.MaxViewContexts)
	}
	n := 0
	for i, v := range mc.Views {
		n += len(v.Text)
		switch {
		case v.RTCID == "" || len(v.RTCID) > a.lim.IDBytes || v.Text == "":
			return protocol.Errorf(protocol.CodeInvalidArgument, "context.views[%d] needs the rtc_id of a tool's view and its text", i)
		case v.Tool != "":
			return protocol.Errorf(protocol.CodeInvalidArgument, "context.views[%d].tool is set by the server", i)
		case !utf8.ValidString(v.Text):
			return protocol.Errorf(protocol.CodeInvalidArgument, "context.views[%d].text must be UTF-8", i)
		case n > a.lim.ViewContextBytes:
			return protocol.Errorf(protocol.CodeTooLarge, "context.views' texts are more than the limit of %d bytes together", a.lim.ViewContextBytes)
		}
	}
	return nil
}

// allowSend applies the per-user message rate limit.
func (a *API) allowSend(c core.Caller) error {
	if ok, wait := a.sends.allow(c.UserID); !ok {
		return protocol.Errorf(protocol.CodeRateLimited, "too many messages; try again in %d s", int(wait.Seconds())+1)
	}
	return nil
}

// cursor parses a numeric list cursor ("" = from the start).
func cursor(s string) (int64, error) {
	if s == "" {
		return 0, nil
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n < 0 {
		return 0, protocol.Errorf(protocol.CodeInvalidArgument, "cursor %q is not valid", s)
	}
	return n, nil
}

// seqPage reads a list request of one session's rows in seq order: the
// request, and the seq its cursor names (0 for the first page).
func (a *API) seqPage(params json.RawMessage) (protocol.ListRequest, int64, error) {
	var req protocol.ListRequest
	if err := decode(params, &req); err != nil {
		return req, 0, err
	}
	if err := a.checkID("session_id", req.SessionID); err != nil {
		return req, 0, err
	}
	after, err := cursor(req.Cursor)
	return req, after, err
}

func (a *API) messageList(ctx context.Context, c core.Caller, params json.RawMessage) (any, error) {
	req, after, err := a.seqPage(params)
	if err != nil {
		return nil, err
	}
	limit := a.limit(req.Limit)
	res := &protocol.MessageListResult{Messages: []protocol.Message{}}
	var streaming map[string]bool
	err = a.read(ctx, func(tx store.Tx) error {
		if _, err := core.SessionFor(tx, c, req.SessionID); err != nil {
			return err
		}
		if res.Offset, err = topOffset(tx, c.UserID); err != nil {
			return err
		}
		msgs, err := tx.MessageList(req.SessionID, store.Page{After: after, Limit: limit})
		if err != nil {
			return err
		}
		res.Messages = append(res.Messages, msgs...)
		if len(msgs) == limit {
			res.NextCursor = strconv.FormatInt(msgs[len(msgs)-1].Seq, 10)
		}
		streaming, err = liveMessages(tx, msgs)
		return err
	})
	for i := range res.Messages {
		a.withPartial(&res.Messages[i], streaming)
	}
	return res, err
}

// liveMessages returns the ids of the streaming messages among msgs whose turn
// has not ended, read in the same snapshot. Only those take text from the partial
// buffer: an ended turn's messages are final in the database, and text no Topic
// update carried must not reach a client from a read.
func liveMessages(tx store.Tx, msgs []protocol.Message) (map[string]bool, error) {
	live := map[string]bool{}
	ended := map[string]bool{}
	for _, m := range msgs {
		if m.Status != protocol.MessageStreaming {
			continue
		}
		e, seen := ended[m.TurnID]
		if !seen {
			t, err := tx.TurnGet(m.TurnID)
			if err != nil && !errors.Is(err, store.ErrNotFound) {
				return nil, err
			}
			e = err != nil || protocol.TurnTerminal(t.Status)
			ended[m.TurnID] = e
		}
		if !e {
			live[m.ID] = true
		}
	}
	return live, nil
}

// withPartial fills a streaming message of a running turn (one in live) with the
// text streamed so far.
func (a *API) withPartial(m *protocol.Message, live map[string]bool) int64 {
	if !live[m.ID] {
		return 0
	}
	text, seq, ok := a.runner.Partial(m.ID)
	if ok {
		m.Text = text
	}
	return seq
}

func (a *API) messageGet(ctx context.Context, c core.Caller, params json.RawMessage) (any, error) {
	var req protocol.IDRequest
	if err := decode(params, &req); err != nil {
		return nil, err
	}
	if err := a.checkID("message_id", req.MessageID); err != nil {
		return nil, err
	}
	var m *protocol.Message
	var live map[string]bool
	err := a.read(ctx, func(tx store.Tx) error {
		var err error
		if m, err = tx.MessageGet(req.MessageID); err != nil || m.UserID != c.UserID {
			return protocol.ErrNotFound("message", req.MessageID)
		}
		if _, err = core.SessionFor(tx, c, m.SessionID); err != nil {
			return err
		}
		live, err = liveMessages(tx, []protocol.Message{*m})
		return err
	})
	if err != nil {
		return nil, err
	}
	seq := a.withPartial(m, live)
	return &protocol.MessageGetResult{Message: *m, DeltaSeq: seq}, nil
}

func topOffset(tx store.Tx, userID string) (int64, error) {
	p, err := tx.StreamGet(userID)
	return p.Top, err
}
