package agui

import "encoding/json"

// The AG-UI wire types RTC Agent reads and writes (protocol 1.0). Fields the
// server does not use are not decoded.

// ProtocolVersion is the AG-UI protocol version the server speaks.
const ProtocolVersion = "1.0"

// RunInput is AG-UI's RunAgentInput.
type RunInput struct {
	ThreadID string    `json:"threadId"`
	RunID    string    `json:"runId"`
	Messages []Message `json:"messages"`
	Tools    []Tool    `json:"tools"`
	Context  []Context `json:"context"`
	// Resume answers the interrupts that ended an earlier run.
	Resume []ResumeEntry `json:"resume"`
}

// ResumeEntry answers one interrupt: "resolved" with a payload, or
// "cancelled".
type ResumeEntry struct {
	InterruptID string          `json:"interruptId"`
	Status      string          `json:"status"`
	Payload     json.RawMessage `json:"payload,omitempty"`
}

// Interrupt is what a run waits for from the person: an approval of a call
// the server runs, or an answer to an MCP server's question.
type Interrupt struct {
	ID             string          `json:"id"`
	Reason         string          `json:"reason"`
	Message        string          `json:"message,omitempty"`
	ToolCallID     string          `json:"toolCallId,omitempty"`
	ResponseSchema json.RawMessage `json:"responseSchema,omitempty"`
	Metadata       map[string]any  `json:"metadata,omitempty"`
}

// Message is an AG-UI message: user, assistant or tool (others are read and
// passed over).
type Message struct {
	ID         string          `json:"id"`
	Role       string          `json:"role"`
	Content    json.RawMessage `json:"content,omitempty"` // a string, or (user, tool) a list of parts
	ToolCalls  []ToolCall      `json:"toolCalls,omitempty"`
	ToolCallID string          `json:"toolCallId,omitempty"`
	Error      string          `json:"error,omitempty"`
}

// ToolCall is a call an assistant message made.
type ToolCall struct {
	ID       string       `json:"id"`
	Type     string       `json:"type"` // "function"
	Function FunctionCall `json:"function"`
}

// FunctionCall names the tool and carries its arguments as JSON text.
type FunctionCall struct {
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

// Tool is a tool the client offers: a frontend tool.
type Tool struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Parameters  json.RawMessage `json:"parameters,omitempty"`
}

// Context is a named piece of ambient information for the run.
type Context struct {
	Description string `json:"description"`
	Value       string `json:"value"`
}

// Event types the server sends.
const (
	evRunStarted       = "RUN_STARTED"
	evRunFinished      = "RUN_FINISHED"
	evRunError         = "RUN_ERROR"
	evStepStarted      = "STEP_STARTED"
	evStepFinished     = "STEP_FINISHED"
	evTextStart        = "TEXT_MESSAGE_START"
	evTextContent      = "TEXT_MESSAGE_CONTENT"
	evTextEnd          = "TEXT_MESSAGE_END"
	evToolCallStart    = "TOOL_CALL_START"
	evToolCallArgs     = "TOOL_CALL_ARGS"
	evToolCallEnd      = "TOOL_CALL_END"
	evToolCallResult   = "TOOL_CALL_RESULT"
	evMessagesSnapshot = "MESSAGES_SNAPSHOT"
)

type runStarted struct {
	Type            string `json:"type"`
	ThreadID        string `json:"threadId"`
	RunID           string `json:"runId"`
	ProtocolVersion string `json:"protocolVersion"`
}

type runFinished struct {
	Type     string       `json:"type"`
	ThreadID string       `json:"threadId"`
	RunID    string       `json:"runId"`
	Outcome  outcome      `json:"outcome"`
	Usage    []tokenUsage `json:"usage,omitempty"`
}

// outcome is why a run ended: "success" (with the client's calls left to
// answer), "interrupt" (the person is asked) or "cancelled" (the turn was
// stopped).
type outcome struct {
	Type               string      `json:"type"`
	PendingToolCallIDs []string    `json:"pendingToolCallIds,omitempty"`
	Interrupts         []Interrupt `json:"interrupts,omitempty"`
}

type tokenUsage struct {
	Model        string `json:"model,omitempty"`
	InputTokens  int64  `json:"inputTokens"`
	OutputTokens int64  `json:"outputTokens"`
	TotalTokens  int64  `json:"totalTokens"`
}

type runError struct {
	Type    string `json:"type"`
	Message string `json:"message"`
	Code    string `json:"code,omitempty"`
}

type step struct {
	Type     string `json:"type"`
	StepName string `json:"stepName"`
}

type textStart struct {
	Type      string `json:"type"`
	MessageID string `json:"messageId"`
	Role      string `json:"role"`
}

type textContent struct {
	Type      string `json:"type"`
	MessageID string `json:"messageId"`
	Delta     string `json:"delta"`
}

type textEnd struct {
	Type      string `json:"type"`
	MessageID string `json:"messageId"`
}

type toolCallStart struct {
	Type            string `json:"type"`
	ToolCallID      string `json:"toolCallId"`
	ToolCallName    string `json:"toolCallName"`
	ParentMessageID string `json:"parentMessageId,omitempty"`
}

type toolCallArgs struct {
	Type       string `json:"type"`
	ToolCallID string `json:"toolCallId"`
	Delta      string `json:"delta"`
}

type toolCallEnd struct {
	Type       string `json:"type"`
	ToolCallID string `json:"toolCallId"`
}

type toolCallResult struct {
	Type       string `json:"type"`
	MessageID  string `json:"messageId"`
	ToolCallID string `json:"toolCallId"`
	Content    string `json:"content"`
	Role       string `json:"role"`
}

type messagesSnapshot struct {
	Type     string       `json:"type"`
	Messages []outMessage `json:"messages"`
}

// outMessage is a message of a MESSAGES_SNAPSHOT.
type outMessage struct {
	ID         string     `json:"id"`
	Role       string     `json:"role"`
	Content    string     `json:"content"`
	ToolCalls  []ToolCall `json:"toolCalls,omitempty"`
	ToolCallID string     `json:"toolCallId,omitempty"`
	Error      string     `json:"error,omitempty"`
}
