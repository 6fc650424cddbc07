package agui

import (
	"encoding/json"
	"fmt"

	"github.com/rtcagent/rtcagent/internal/protocol"
	"github.com/rtcagent/rtcagent/internal/tools"
)

// Interrupt reasons.
const (
	ReasonApproval = "tool_approval"  // a call the server runs waits for the person's approval
	ReasonInput    = "input_required" // an MCP server asks the person (form or link)
)

// approvalSchema is the answer an approval interrupt expects.
var approvalSchema = json.RawMessage(`{"type":"object","properties":{` +
	`"approved":{"type":"boolean"},` +
	`"scope":{"type":"string","enum":["once","session"],"description":"session: allow this tool for the rest of the thread"},` +
	`"reason":{"type":"string","description":"why not, for the model"}},` +
	`"required":["approved"],"additionalProperties":false}`)

// nested reports whether a call is asked within another call (an MCP
// server's question or request to use the model), not by the model: it is
// not a tool call of the conversation.
func nested(c *protocol.RTC) bool {
	return c.ToolName == tools.Elicitation || tools.IsSampling(c.ToolName)
}

// interruptOf is what a delivered call waits for from the person, or nil.
func interruptOf(c *protocol.RTC) *Interrupt {
	if protocol.RTCTerminal(c.Status) || c.Status == protocol.RTCQueued {
		return nil
	}
	if c.ToolName == tools.Elicitation {
		var q tools.ElicitArgs
		if json.Unmarshal(c.Arguments, &q) != nil {
			return nil
		}
		in := &Interrupt{ID: c.ID, Reason: ReasonInput, Message: q.Message, Metadata: map[string]any{"server": q.Server, "mode": q.Mode}}
		if q.Schema != nil {
			in.ResponseSchema = *q.Schema
		}
		if q.URL != "" {
			in.Metadata["url"] = q.URL
		}
		return in
	}
	if c.Executor != protocol.RTCExecutorServer || !c.NeedsConfirmation || c.Approved() || c.Status != protocol.RTCPending {
		return nil
	}
	in := &Interrupt{ID: c.ID, Reason: ReasonApproval, ResponseSchema: approvalSchema}
	if tools.IsSampling(c.ToolName) {
		var q tools.SampleRequest
		_ = json.Unmarshal(c.Arguments, &q)
		in.Message = fmt.Sprintf("The MCP server %q asks to use the model.", q.Server)
		in.Metadata = map[string]any{"server": q.Server, "request": c.Arguments}
		return in
	}
	in.ToolCallID = c.ID
	in.Message = fmt.Sprintf("Allow %s to run?", c.ToolName)
	in.Metadata = map[string]any{"tool": c.ToolName, "arguments": c.Arguments}
	return in
}

// approval is an approval interrupt's answer.
type approval struct {
	Approved bool   `json:"approved"`
	Scope    string `json:"scope"`
	Reason   string `json:"reason"`
}

// resumeRequest turns the answer to an open call's interrupt into the method
// the person's browser would call, and its params.
func resumeRequest(c *protocol.RTC, e ResumeEntry) (string, any, error) {
	clientID := "ag-ui:resume:" + c.ID
	resolved := e.Status == "resolved"
	if c.ToolName == tools.Elicitation {
		answer := map[string]any{"action": "cancel"}
		if resolved {
			answer["action"] = "accept"
			if len(e.Payload) > 0 && string(e.Payload) != "null" {
				answer["content"] = e.Payload
			}
		}
		out, _ := json.Marshal(answer)
		return protocol.MethodRTCSubmitResult, protocol.RTCSubmitResultRequest{RTCID: c.ID, ClientID: clientID, OK: true, Output: out}, nil
	}
	var a approval
	if resolved && len(e.Payload) > 0 {
		if err := json.Unmarshal(e.Payload, &a); err != nil {
			return "", nil, protocol.Errorf(protocol.CodeInvalidArgument, "resume %q: payload: %v", e.InterruptID, err)
		}
	}
	if a.Approved {
		scope := protocol.ScopeOnce
		if a.Scope == protocol.ScopeSession {
			scope = protocol.ScopeSession
		}
		return protocol.MethodRTCApprove, protocol.RTCApproveRequest{RTCID: c.ID, ClientID: clientID, Approval: &protocol.ApprovalAnswer{Scope: scope}}, nil
	}
	reason := a.Reason
	if reason == "" {
		reason = "The person declined."
	}
	return protocol.MethodRTCUpdateStatus, protocol.RTCUpdateStatusRequest{RTCID: c.ID, Status: protocol.RTCRejected, ClientID: clientID,
		Reason: reason, Approval: &protocol.ApprovalAnswer{Reason: reason}}, nil
}
