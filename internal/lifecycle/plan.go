package lifecycle

import (
	"encoding/json"
	"time"

	"github.com/rtcagent/rtcagent/internal/llm"
	"github.com/rtcagent/rtcagent/internal/protocol"
	"github.com/rtcagent/rtcagent/internal/tools"
)

// PlanInput is what PlanRTCs decides from.
type PlanInput struct {
	Calls    []llm.ToolCall
	Tools    *tools.Set
	WorkMode string
	// Approvals are the session's "Allow for this chat" tools: their calls need
	// no confirmation unless they change a protected path.
	Approvals []protocol.ToolApproval
	Now       time.Time
	Limits    protocol.Limits
	Step      int
	FirstSeq  int // seq of the first RTC of this step within the turn
	SessionID string
	TurnID    string
	UserID    string
	MessageID string
	NewID     func() string
}

// PlanRTCs turns the model's tool calls, as AdmitCall bounded them, into RTC rows.
// Calls that cannot run end at once: unknown tools, arguments AdmitCall cut and
// bad arguments as failed, plan-mode writes as rejected, each with a message the
// model can act on. The others start queued; the caller delivers
// the first. Calls that need the user (confirmation, askUser) get the human-wait
// budget instead of the execution deadline.
func PlanRTCs(in PlanInput) []protocol.RTC {
	out := make([]protocol.RTC, 0, len(in.Calls))
	for i, c := range in.Calls {
		r := protocol.RTC{ID: in.NewID(), SessionID: in.SessionID, TurnID: in.TurnID, UserID: in.UserID, MessageID: in.MessageID,
			ToolCallID: c.ID, Seq: in.FirstSeq + i, Step: in.Step, ToolName: c.Name, Arguments: safeArgs(c.Arguments),
			Status: protocol.RTCQueued}
		if c.Cut != "" {
			r.Status, r.Error = protocol.RTCFailed, c.Cut
			out = append(out, r)
			continue
		}
		tool, err := in.Tools.CheckCall(c.Name, c.Arguments, in.Limits)
		if err != nil {
			r.Status, r.Error = protocol.RTCFailed, err.Error()
			out = append(out, r)
			continue
		}
		d := tools.DecideTool(in.WorkMode, tool, c.Arguments)
		if d.Refused {
			r.Status, r.Error = protocol.RTCRejected, tools.PlanRefusal(c.Name)
			out = append(out, r)
			continue
		}
		if d.NeedsConfirmation {
			if a, ok := standing(in.Approvals, c.Name); ok && tools.AllowableForChat(c.Name, c.Arguments) {
				d.NeedsConfirmation = false
				r.Decision = &protocol.Decision{Decision: protocol.DecisionAllow, Scope: protocol.ScopeSession, Standing: true, DeviceID: a.DeviceID, At: in.Now}
			}
		}
		r.NeedsConfirmation = d.NeedsConfirmation
		if tool.OnServer {
			r.Executor = protocol.RTCExecutorServer
			r.App = tool.App
		}
		budget := in.Limits.ExecTimeout
		if tools.MayAsk(d, tool) {
			budget = in.Limits.HumanTimeout
		}
		r.TimeoutMS = budget.Milliseconds()
		r.Policy = &protocol.CallPolicy{Kind: string(tool.Kind), HostApproval: tool.Approval}
		if budget != in.Limits.HumanTimeout {
			r.Policy.AskTimeoutMS = in.Limits.HumanTimeout.Milliseconds()
		}
		out = append(out, r)
	}
	return out
}

func standing(list []protocol.ToolApproval, tool string) (protocol.ToolApproval, bool) {
	for _, a := range list {
		if a.Tool == tool {
			return a, true
		}
	}
	return protocol.ToolApproval{}, false
}

// safeArgs keeps arguments storable as JSON: invalid JSON from the model is kept as
// a JSON string so the browser and the transcript still see what was sent.
func safeArgs(raw json.RawMessage) json.RawMessage {
	if len(raw) == 0 {
		return json.RawMessage(`{}`)
	}
	if json.Valid(raw) {
		return raw
	}
	s, _ := json.Marshal(string(raw))
	return s
}
