package agent

import (
	"github.com/rtcagent/rtcagent/internal/llm"
	"github.com/rtcagent/rtcagent/internal/protocol"
	"github.com/rtcagent/rtcagent/internal/tools"
)

// AdmitCall bounds one tool call of the model where it enters, before it is
// stored in the message or an RTC, published or sent to the model again. Its id
// and name are cut to lim.IDBytes, and an id shaped as the server's own
// calls' is marked as the model's (protocol.ModelCallID). Arguments over lim.ToolArgsBytes, or past
// lim.StepArgsBytes together with the step's calls before it (stepArgs bytes
// kept so far), are kept as a prefix and a note, and Cut says why: PlanRTCs
// fails such a call with that reason. askUser arguments over lim.AskUserBytes
// are bounded field by field and the call still runs (or, not in askUser's
// shape, are cut like the others). The call after the step's first
// lim.StepCalls (calls kept before it) fails the same way, saying that the
// calls after it are left out (StepCallsFull).
func AdmitCall(c llm.ToolCall, lim protocol.Limits, stepArgs, calls int) llm.ToolCall {
	c.ID = protocol.Cut(protocol.ModelCallID(c.ID), lim.IDBytes)
	c.Name = protocol.Cut(c.Name, lim.IDBytes)
	if calls >= lim.StepCalls {
		return cutCall(c, tools.TooManyCalls(c.Name, lim.StepCalls))
	}
	n := len(c.Arguments)
	if n > lim.ToolArgsBytes {
		return cutCall(c, tools.ArgsTooLarge(c.Name, n, lim.ToolArgsBytes))
	}
	if c.Name == "askUser" {
		args, ok := tools.BoundAskArgs(c.Arguments, lim.AskUserBytes)
		if !ok {
			return cutCall(c, tools.ArgsTooLarge(c.Name, n, lim.AskUserBytes))
		}
		c.Arguments = args
	}
	if stepArgs+len(c.Arguments) > lim.StepArgsBytes {
		return cutCall(c, tools.StepArgsTooLarge(c.Name, len(c.Arguments), lim.StepArgsBytes))
	}
	return c
}

// StepCallsFull reports whether a step that kept calls calls leaves out the
// model's next call: the one after the limit is kept, failed, to say so.
func StepCallsFull(lim protocol.Limits, calls int) bool { return calls > lim.StepCalls }

func cutCall(c llm.ToolCall, why error) llm.ToolCall {
	c.Arguments, c.Cut = protocol.CutArgs(c.Arguments, protocol.CutArgsKeep), why.Error()
	return c
}
