package lifecycle

import (
	"time"

	"github.com/rtcagent/rtcagent/internal/core"
	"github.com/rtcagent/rtcagent/internal/llm"
	"github.com/rtcagent/rtcagent/internal/protocol"
	"github.com/rtcagent/rtcagent/internal/store"
	"github.com/rtcagent/rtcagent/internal/tools"
)

// ToolStep is a model step that asked for tools, as the worker commits it:
// the turn (running, its step and usage already advanced), the step's
// assistant message (written in this transaction) and the calls as
// agent.AdmitCall bounded them.
type ToolStep struct {
	Turn    *protocol.Turn
	Message *protocol.Message
	Calls   []llm.ToolCall
	Tools   *tools.Set
	Limits  protocol.Limits
	Model   string
	// FirstSeq is the seq within the turn of the step's first call.
	FirstSeq int
	// TraceParent gives each new call its trace context.
	TraceParent func() string
}

// CallTools plans the step's calls under the session's work mode and "Allow
// for this chat" list as s holds them in this transaction (one switched while
// the model streamed applies), writes them, delivers the first that can run
// and suspends the turn on it: the turn waits, with a checkpoint that outlives
// the longest wait of its calls. When every call ended at planning (unknown
// tools, bad arguments, plan mode) the turn stays running and waiting is
// false: the worker takes the next step at once.
func CallTools(tx store.Tx, s *protocol.Session, st ToolStep) (waiting bool, err error) {
	t := st.Turn
	rtcs := PlanRTCs(PlanInput{Calls: st.Calls, Tools: st.Tools, WorkMode: s.WorkMode, Approvals: s.Approvals, Now: tx.Now(),
		Limits: st.Limits, Step: t.Step, FirstSeq: st.FirstSeq, SessionID: t.SessionID, TurnID: t.ID, UserID: t.UserID,
		MessageID: st.Message.ID, NewID: core.NewID})
	var delivered *protocol.RTC
	for i := range rtcs {
		rc := &rtcs[i]
		rc.TraceParent = st.TraceParent()
		if rc.Status == protocol.RTCQueued && delivered == nil {
			delivered = rc
			err = Deliver(tx, rc, "")
		} else {
			err = EmitRTC(tx, rc, "")
		}
		if err != nil {
			return false, err
		}
	}
	if delivered == nil {
		return false, core.EmitTurn(tx, t, protocol.TurnRunning)
	}
	setCheckpoint(tx, st, checkpointTTL(rtcs))
	t.Status = protocol.TurnWaiting
	return true, core.EmitTurn(tx, t, protocol.TurnRunning)
}

// checkpointTTL is the longest the step can wait: its calls run one after another,
// each with its own budget from its delivery.
func checkpointTTL(rtcs []protocol.RTC) time.Duration {
	d := CheckpointGrace
	for _, r := range rtcs {
		if !protocol.RTCTerminal(r.Status) {
			d += time.Duration(r.TimeoutMS) * time.Millisecond
		}
	}
	return d
}

// setCheckpoint sets the turn's checkpoint with the given time to live; the
// turn's write that follows stores it.
func setCheckpoint(tx store.Tx, st ToolStep, ttl time.Duration) {
	st.Turn.Checkpoint = &protocol.TurnCheckpoint{ExpiresAt: tx.Now().Add(ttl)}
}
