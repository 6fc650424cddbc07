package lifecycle

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/rtcagent/rtcagent/internal/core"
	"github.com/rtcagent/rtcagent/internal/protocol"
	"github.com/rtcagent/rtcagent/internal/store"
	"github.com/rtcagent/rtcagent/internal/tools"
)

// A question a tool's server puts to the person during a call (an MCP
// elicitation) is an RTC of the call's turn and step whose tool is
// tools.Elicitation, delivered to the browser like the model's calls. Its
// tool_call_id names the call and is in no model message, so the transcript
// leaves it out; and while the call is executing it is the step's first open
// RTC, so the question's end neither delivers the next call nor resumes the
// turn.

// ElicitationCallID is the tool_call_id of the n-th question of server call
// parentID.
func ElicitationCallID(parentID string, n int64) string {
	return fmt.Sprintf("%s%d", elicitationPrefix(parentID), n)
}

// ErrCallEnded is Ask's answer when the server call ended, or has no time
// left, before its question could be asked.
var ErrCallEnded = errors.New("the tool's call ended before the question was asked")

// Question is a question of a server call to put to the person.
type Question struct {
	ParentID string // the server call
	N        int64  // the call's n-th question
	ID       string // the new RTC's id
	Args     json.RawMessage
	// Human is the person's time to answer, cut at the call's deadline.
	Human time.Duration
	// Unshowable, when set, is why the question cannot be shown: it is
	// recorded as failed with that reason, on the call's card, and not
	// delivered.
	Unshowable string
	// Tool is the question's tool: tools.Elicitation (the default), or
	// tools.SamplingTool(server) for a request to use the model, which the
	// server runs itself once the person allowed it, or at once when the
	// session allows that server's requests for the chat.
	Tool string
}

// Ask records question q of a running server call as an elicitation RTC of
// the call's turn and step, and delivers it to the person. It returns
// ErrCallEnded when the call ended, or has no time left, first.
func Ask(tx store.Tx, q Question) error {
	p, err := tx.RTCGet(q.ParentID)
	if err != nil {
		return err
	}
	if protocol.RTCTerminal(p.Status) {
		return ErrCallEnded
	}
	budget := q.Human
	if p.DeadlineAt != nil {
		budget = min(budget, p.DeadlineAt.Sub(tx.Now()))
	}
	if budget <= 0 {
		return ErrCallEnded
	}
	all, err := tx.RTCListByTurn(p.TurnID)
	if err != nil {
		return err
	}
	seq := 0
	for _, x := range all {
		seq = max(seq, x.Seq)
	}
	tool := q.Tool
	if tool == "" {
		tool = tools.Elicitation
	}
	r := &protocol.RTC{ID: q.ID, SessionID: p.SessionID, TurnID: p.TurnID, UserID: p.UserID, MessageID: p.MessageID,
		ToolCallID: ElicitationCallID(q.ParentID, q.N), Seq: seq + 1, Step: p.Step, ToolName: tool, Arguments: q.Args,
		TimeoutMS: budget.Milliseconds()}
	if tools.IsSampling(tool) {
		if err := decideSampling(tx, r); err != nil {
			return err
		}
	}
	if q.Unshowable != "" {
		r.Status, r.Error = protocol.RTCFailed, q.Unshowable
		return EmitRTC(tx, r, "")
	}
	return Deliver(tx, r, "")
}

// decideSampling makes r, a request to use the model, one the server runs:
// at once when the session allows the server's requests for this chat (the
// standing approval recorded on it), else once the person allowed it.
func decideSampling(tx store.Sessions, r *protocol.RTC) error {
	s, err := tx.SessionGet(r.SessionID)
	if err != nil {
		return err
	}
	r.Executor, r.NeedsConfirmation = protocol.RTCExecutorServer, true
	if a, ok := s.Approval(r.ToolName); ok {
		r.NeedsConfirmation = false
		r.Decision = &protocol.Decision{Decision: protocol.DecisionAllow, Scope: protocol.ScopeSession, Standing: true, DeviceID: a.DeviceID, At: a.GrantedAt}
	}
	return nil
}

// EndSample records the end of a request to use the model: the model's answer
// (ok, output) or why it failed, with its tokens added to the turn's usage
// (the session's, once the turn ended). A request that ended meanwhile (its
// call stopped, its deadline) keeps its end; the tokens still count.
func EndSample(tx store.Tx, id string, ok bool, output json.RawMessage, errText string, u protocol.Usage) error {
	r, err := EndServerRTC(tx, id, tools.ServerResult{OK: ok, Output: output, Error: errText})
	if err != nil || (u.InputTokens == 0 && u.OutputTokens == 0) {
		return err
	}
	t, err := tx.TurnGet(r.TurnID)
	if err != nil {
		return err
	}
	if !protocol.TurnTerminal(t.Status) {
		t.Usage.Add(u)
		return core.EmitTurn(tx, t, t.Status)
	}
	s, err := tx.SessionGet(t.SessionID)
	if err != nil {
		return err
	}
	s.Usage.Add(u)
	return core.EmitSession(tx, s, protocol.UpdSessionUpdated)
}

func elicitationPrefix(parentID string) string { return protocol.QuestionCallIDPrefix + parentID + ":" }

// EndElicitation ends an open question of a server call as failed with reason
// (compare-and-set from its stored status); an ended one is left as it is.
func EndElicitation(tx store.Tx, id, reason string) error {
	r, err := tx.RTCGet(id)
	if err != nil || protocol.RTCTerminal(r.Status) {
		return err
	}
	prev := r.Status
	r.Status, r.Error = protocol.RTCFailed, reason
	if err := EmitRTC(tx, r, prev); err != nil {
		return casConflict(err, r.ID)
	}
	return nil
}

// EndElicitations ends the open questions of server call parent (one cut off by
// a restart), so none stays pending once the call has ended or starts again.
func EndElicitations(tx store.Tx, parent *protocol.RTC, reason string) error {
	open, err := tx.RTCListOpenByTurn(parent.TurnID)
	if err != nil {
		return err
	}
	for i := range open {
		q := &open[i]
		if !strings.HasPrefix(q.ToolCallID, elicitationPrefix(parent.ID)) {
			continue
		}
		prev := q.Status
		q.Status, q.Error = protocol.RTCFailed, reason
		if err := EmitRTC(tx, q, prev); err != nil {
			return casConflict(err, q.ID)
		}
	}
	return nil
}
