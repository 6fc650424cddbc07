package protocol

import "encoding/json"

// Method names.
const (
	MethodMessageSend     = "v1.message.send"
	MethodMessageList     = "v1.message.list"
	MethodMessageGet      = "v1.message.get"
	MethodSessionList     = "v1.session.list"
	MethodSessionGet      = "v1.session.get"
	MethodSessionUpdate   = "v1.session.update"
	MethodSessionClose    = "v1.session.close"
	MethodSessionOpen     = "v1.session.open"
	MethodSessionDelete   = "v1.session.delete"
	MethodSessionFork     = "v1.session.fork"
	MethodSessionMove     = "v1.session.move"
	MethodSessionCompact  = "v1.session.compact"
	MethodTurnStop        = "v1.turn.stop"
	MethodTurnRetry       = "v1.turn.retry"
	MethodTurnList        = "v1.turn.list"
	MethodTurnGet         = "v1.turn.get"
	MethodRTCUpdateStatus = "v1.rtc.update_status"
	MethodRTCSubmitResult = "v1.rtc.submit_result"
	MethodRTCList         = "v1.rtc.list"
	MethodRTCGet          = "v1.rtc.get"
	MethodRTCPending      = "v1.rtc.pending"
	MethodRTCApprove      = "v1.rtc.approve"
	MethodUpdateList      = "v1.update.list"
)

// HostTool is a tool the host page registers; it travels with v1.message.send.
type HostTool struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Parameters  json.RawMessage `json:"parameters"`
	// Approval is the tool's needsApproval: "" or "always" as the work mode says,
	// "never" (no confirmation), "arguments" (the browser decides per call).
	Approval string `json:"approval,omitempty"`
}

// Host tool approvals (HostTool.Approval).
const (
	ApprovalAlways    = "always"
	ApprovalNever     = "never"
	ApprovalArguments = "arguments"
)

// MessageContent is the content of a user message.
type MessageContent struct {
	Text string `json:"text"`
}

// MessageContext is what the page sends along with a message for the model:
// AgentMD is the page's /AGENT.md, the host site's instructions, included in
// the system prompt of every step of the message's turn; Views are what the
// chat's tool views (MCP Apps) asked the model to know since the person's
// last message (ui/update-model-context), the latest of each view, read by
// the model with the message.
type MessageContext struct {
	AgentMD string        `json:"agent_md,omitempty"`
	Views   []ViewContext `json:"views,omitempty"`
}

// ViewContext is one tool view's context for the model: the view of call
// RTCID, its text. Tool, the call's tool, is set by the server.
type ViewContext struct {
	RTCID string `json:"rtc_id"`
	Tool  string `json:"tool,omitempty"`
	Text  string `json:"text"`
}

// MaxViewContexts is how many views' contexts a message may carry.
const MaxViewContexts = 8

type MessageSendRequest struct {
	ClientID  string         `json:"client_id"`
	SessionID string         `json:"session_id,omitempty"`
	Content   MessageContent `json:"content"`
	WorkMode  string         `json:"work_mode,omitempty"`
	Tools     []HostTool     `json:"tools,omitempty"`
	// HostToolsOnly offers the model only Tools (and the server's MCP tools),
	// not the built-in browser tools: for clients that run only their own tools.
	HostToolsOnly bool            `json:"host_tools_only,omitempty"`
	Context       *MessageContext `json:"context,omitempty"`
	// NewSessionID, for callers inside the server only (never on the wire),
	// names the session when SessionID is empty: it is used if it exists and
	// created with that id if not (an AG-UI thread's session).
	NewSessionID string `json:"-"`
}

type MessageSendResult struct {
	SessionID string `json:"session_id"`
	MessageID string `json:"message_id"`
	TurnID    string `json:"turn_id"`
}

// ListRequest pages through the entities of one session (or of the user for
// sessions and RTCs). Cursor is the seq/offset after which to continue ("" = start).
type ListRequest struct {
	SessionID string `json:"session_id,omitempty"`
	Cursor    string `json:"cursor,omitempty"`
	Limit     int    `json:"limit,omitempty"`
}

// IDRequest names one entity.
type IDRequest struct {
	ID        string `json:"id,omitempty"`
	SessionID string `json:"session_id,omitempty"`
	MessageID string `json:"message_id,omitempty"`
	TurnID    string `json:"turn_id,omitempty"`
	RTCID     string `json:"rtc_id,omitempty"`
}

type SessionListResult struct {
	Sessions   []Session `json:"sessions"`
	NextCursor string    `json:"next_cursor,omitempty"`
	Offset     int64     `json:"offset"` // the user's top offset when read
}

type MessageListResult struct {
	Messages   []Message `json:"messages"`
	NextCursor string    `json:"next_cursor,omitempty"`
	Offset     int64     `json:"offset"`
}

// MessageGetResult carries the message; for a streaming message Text is the partial
// text so far and Seq the last Live delta included in it.
type MessageGetResult struct {
	Message  Message `json:"message"`
	DeltaSeq int64   `json:"delta_seq"`
}

type SessionUpdateRequest struct {
	SessionID string  `json:"session_id"`
	Title     *string `json:"title,omitempty"`
	WorkMode  *string `json:"work_mode,omitempty"`
	// RevokeApprovals names tools no longer allowed for this chat.
	RevokeApprovals []string `json:"revoke_approvals,omitempty"`
}

// SessionForkRequest forks a session at one of its user messages.
type SessionForkRequest struct {
	ClientID  string `json:"client_id"` // idempotency key of the new message
	SessionID string `json:"session_id"`
	MessageID string `json:"message_id"`
	Text      string `json:"text,omitempty"` // replaces the message's text; empty keeps it
}

// SessionCompactRequest queues a compact turn: the model summarises the
// session's history, and later model steps start from the summary.
type SessionCompactRequest struct {
	SessionID   string `json:"session_id"`
	Instruction string `json:"instruction,omitempty"` // what the summary should focus on
}

// TurnRetryRequest queues a new turn that continues from the user message of a
// failed or stopped turn.
type TurnRetryRequest struct {
	SessionID string `json:"session_id"`
	TurnID    string `json:"turn_id"`
	ClientID  string `json:"client_id"` // idempotency key per user
}

// TurnStartResult names a turn queued by v1.session.compact or v1.turn.retry.
type TurnStartResult struct {
	SessionID string `json:"session_id"`
	TurnID    string `json:"turn_id"`
}

type SessionResult struct {
	Session Session `json:"session"`
}

type TurnListResult struct {
	Turns      []Turn `json:"turns"`
	NextCursor string `json:"next_cursor,omitempty"`
	Offset     int64  `json:"offset"`
}

type TurnResult struct {
	Turn Turn `json:"turn"`
}

type RTCUpdateStatusRequest struct {
	RTCID    string `json:"rtc_id"`
	Status   string `json:"status"`
	ClientID string `json:"client_id"`
	Reason   string `json:"reason,omitempty"` // shown to the model for rejected
	// Approval is the person's answer to a confirmation: with executing (allowed)
	// or rejected (denied). Recorded on the RTC; scope "session" also allows the
	// tool for the rest of the chat.
	Approval *ApprovalAnswer `json:"approval,omitempty"`
}

// ApprovalAnswer is how the person answered a confirmation.
type ApprovalAnswer struct {
	Scope string `json:"scope,omitempty"` // once (default) or session ("Allow for this chat")
	// Standing: not asked, because the tool was allowed for this chat earlier
	// (the browser's own check, e.g. of a host tool's needsApproval function).
	Standing bool   `json:"standing,omitempty"`
	Reason   string `json:"reason,omitempty"` // the person's reason for a denial, as typed
}

type RTCSubmitResultRequest struct {
	RTCID    string          `json:"rtc_id"`
	ClientID string          `json:"client_id"`
	OK       bool            `json:"ok"`
	Output   json.RawMessage `json:"output,omitempty"`
	Error    string          `json:"error,omitempty"`
	// Execution is the browser's timing of the run (optional; kept in the audit
	// record and traced as the call's execution).
	Execution *RTCExecution `json:"execution,omitempty"`
}

// RTCApproveRequest is the person's approval of a call the server executes.
type RTCApproveRequest struct {
	RTCID    string `json:"rtc_id"`
	ClientID string `json:"client_id"`
	// Approval: scope "session" ("Allow for this chat") also allows the tool for
	// the rest of the chat; once (default) this call only. Reason is not used.
	Approval *ApprovalAnswer `json:"approval,omitempty"`
}

type RTCResult struct {
	RTC RTC `json:"rtc"`
}

type RTCListResult struct {
	RTCs       []RTC  `json:"rtcs"`
	NextCursor string `json:"next_cursor,omitempty"`
	Offset     int64  `json:"offset"`
}

type UpdateListRequest struct {
	SinceOffset int64  `json:"since_offset"`
	Epoch       string `json:"epoch,omitempty"`
	Limit       int    `json:"limit,omitempty"`
}

// UpdateListResult: when Reset is true the client discards its state, reloads it
// with the list methods and continues from Top.
type UpdateListResult struct {
	Epoch   string   `json:"epoch"`
	Updates []Update `json:"updates"`
	Top     int64    `json:"top"`
	Reset   bool     `json:"reset"`
}
