package agent

import (
	"github.com/rtcagent/rtcagent/internal/llm"
	"github.com/rtcagent/rtcagent/internal/protocol"
	"github.com/rtcagent/rtcagent/internal/tools"
)

// AdmitCall bounds one tool call of the model where it enters, before it is
// stored in the message or an RTC, published or sent to the model again. Its id
// and name are cut to lim.IDBytes. Arguments over lim.ToolArgsBytes, or past
// lim.StepArgsBytes together with the step's calls before it (stepArgs bytes
// kept so far), are kept as a prefix and a note, and Cut says why: PlanRTCs
// fails such a call with that reason. askUser arguments over lim.AskUserBytes
// are bounded field by field and the call still runs (or, not in askUser's
// shape, are cut like the others).
func AdmitCall(c llm.ToolCall, lim protocol.Limits, stepArgs int) llm.ToolCall {
	c.ID = protocol.Cut(c.ID, lim.IDBytes)
	c.Name = protocol.Cut(c.Name, lim.IDBytes)
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

func cutCall(c llm.ToolCall, why error) llm.ToolCall {
	c.Arguments, c.Cut = protocol.CutArgs(c.Arguments, protocol.CutArgsKeep), why.Error()
	return c
}
