package lifecycle

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

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
	r := &protocol.RTC{ID: q.ID, SessionID: p.SessionID, TurnID: p.TurnID, UserID: p.UserID, MessageID: p.MessageID,
		ToolCallID: ElicitationCallID(q.ParentID, q.N), Seq: seq + 1, Step: p.Step, ToolName: tools.Elicitation, Arguments: q.Args,
		TimeoutMS: budget.Milliseconds()}
	if q.Unshowable != "" {
		r.Status, r.Error = protocol.RTCFailed, q.Unshowable
		return EmitRTC(tx, r, "")
	}
	return Deliver(tx, r, "")
}

func elicitationPrefix(parentID string) string { return "elicit:" + parentID + ":" }

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
