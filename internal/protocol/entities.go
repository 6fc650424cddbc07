package protocol

import (
	"encoding/json"
	"time"
)

// Work modes of a session (the permission matrix lives in internal/tools).
const (
	ModeManual = "manual"
	ModeEdit   = "edit"
	ModePlan   = "plan"
	ModeBypass = "bypass"
)

// ValidWorkMode reports whether m names a work mode.
func ValidWorkMode(m string) bool {
	switch m {
	case ModeManual, ModeEdit, ModePlan, ModeBypass:
		return true
	}
	return false
}

// Usage counts model tokens as the provider reported them, and their cost in US
// dollars from the server's price table. CostUSD is nil (omitted) when the cost
// is unknown: a model without a price, or a total with such a part.
type Usage struct {
	InputTokens  int64    `json:"input_tokens"`
	OutputTokens int64    `json:"output_tokens"`
	CostUSD      *float64 `json:"cost_usd,omitempty"`
}

// empty reports whether u is the zero usage (the identity of Add).
func (u Usage) empty() bool { return u.InputTokens == 0 && u.OutputTokens == 0 && u.CostUSD == nil }

// Add adds o to u. The cost of the sum is known only when both costs are known
// (the zero usage counts as known and free).
func (u *Usage) Add(o Usage) {
	if o.empty() {
		return
	}
	wasEmpty := u.empty()
	u.InputTokens += o.InputTokens
	u.OutputTokens += o.OutputTokens
	switch {
	case wasEmpty && o.CostUSD != nil:
		c := *o.CostUSD
		u.CostUSD = &c
	case u.CostUSD != nil && o.CostUSD != nil:
		c := *u.CostUSD + *o.CostUSD
		u.CostUSD = &c
	default:
		u.CostUSD = nil
	}
}

// Equal reports whether u and o count the same tokens and the same (or both
// unknown) cost.
func (u Usage) Equal(o Usage) bool {
	if u.InputTokens != o.InputTokens || u.OutputTokens != o.OutputTokens || (u.CostUSD == nil) != (o.CostUSD == nil) {
		return false
	}
	return u.CostUSD == nil || *u.CostUSD == *o.CostUSD
}

// Session statuses.
const (
	SessionOpen   = "open"
	SessionClosed = "closed"
)

// Session is one conversation. It belongs to the user and to the device (browser
// profile) that created it: only that device executes its RTCs.
type Session struct {
	ID           string `json:"id"`
	UserID       string `json:"user_id"`
	DeviceID     string `json:"device_id"`
	Title        string `json:"title"`
	WorkMode     string `json:"work_mode"`
	Status       string `json:"status"`
	Deleted      bool   `json:"deleted,omitempty"`
	ActiveTurnID string `json:"active_turn_id,omitempty"`
	// Usage totals the model tokens of the session's finished turns;
	// ContextTokens is the input size of the latest model step (the context used).
	Usage         Usage `json:"usage"`
	ContextTokens int64 `json:"context_tokens"`
	// Approvals are the tools the person allowed for this chat ("Allow for this
	// chat"): their calls run without asking until revoked, except changes of
	// protected paths, which ask every time.
	Approvals []ToolApproval `json:"approvals,omitempty"`
	CreatedAt time.Time      `json:"created_at"`
	UpdatedAt time.Time      `json:"updated_at"`
	Offset    int64          `json:"offset"` // offset of the update that produced this state
}

// ToolApproval is one tool allowed for a whole chat: by which device, when, and
// on which call's confirmation.
type ToolApproval struct {
	Tool      string    `json:"tool"`
	DeviceID  string    `json:"device_id"`
	RTCID     string    `json:"rtc_id"`
	GrantedAt time.Time `json:"granted_at"`
}

// HasApproval reports whether tool is allowed for the whole session.
func (s *Session) HasApproval(tool string) bool {
	_, ok := s.Approval(tool)
	return ok
}

// Approval returns the session's "Allow for this chat" of tool, if it has one.
func (s *Session) Approval(tool string) (ToolApproval, bool) {
	for _, a := range s.Approvals {
		if a.Tool == tool {
			return a, true
		}
	}
	return ToolApproval{}, false
}

// Decisions on a call that needed the person, and their scopes.
const (
	DecisionAllow = "allow"
	DecisionDeny  = "deny"
	ScopeOnce     = "once"
	ScopeSession  = "session"
)

// Decision records who decided whether a call needing confirmation ran, when,
// and how: allowed once, allowed for the session (Standing: by an earlier
// "Allow for this chat", without asking), or denied with the person's reason.
type Decision struct {
	Decision string    `json:"decision"`
	Scope    string    `json:"scope"`
	Standing bool      `json:"standing,omitempty"`
	Reason   string    `json:"reason,omitempty"`
	DeviceID string    `json:"device_id,omitempty"`
	At       time.Time `json:"at"`
}

// Turn statuses. queued → running ⇄ waiting → completed | failed | stopped.
const (
	TurnQueued    = "queued"
	TurnRunning   = "running"
	TurnWaiting   = "waiting" // suspended until the RTCs of its step are terminal
	TurnCompleted = "completed"
	TurnFailed    = "failed"
	TurnStopped   = "stopped"
)

// TurnTerminal reports whether a turn in status s is finished.
func TurnTerminal(s string) bool {
	return s == TurnCompleted || s == TurnFailed || s == TurnStopped
}

// Turn kinds: a normal turn answers a user message; a compact turn summarises
// the session's history (v1.session.compact); an app turn runs the call a
// tool's view asked for after the view's own turn ended (v1.app.call), with
// no model step.
const (
	TurnKindNormal  = ""
	TurnKindCompact = "compact"
	TurnKindApp     = "app"
)

// TurnError explains why a turn failed.
type TurnError struct {
	Category  string `json:"category"` // step_limit, model_error, checkpoint_expired, internal
	Message   string `json:"message"`
	Retryable bool   `json:"retryable"`
}

// Turn is one run of the agent loop, started by one user message.
type Turn struct {
	ID            string `json:"id"`
	SessionID     string `json:"session_id"`
	UserID        string `json:"user_id"`
	Seq           int64  `json:"seq"`             // order within the session, from 1
	UserMessageID string `json:"user_message_id"` // empty for a compact turn
	Kind          string `json:"kind,omitempty"`  // "" (normal), "compact" or "app"
	// Instruction is the optional focus of a compact turn's summary.
	Instruction string `json:"instruction,omitempty"`
	// RetryOf names the failed or stopped turn this one retries (v1.turn.retry),
	// ClientID the retry request's idempotency key.
	RetryOf  string     `json:"retry_of,omitempty"`
	ClientID string     `json:"client_id,omitempty"`
	Status   string     `json:"status"`
	Step     int        `json:"step"` // model steps taken so far
	Error    *TurnError `json:"error,omitempty"`
	Tools    []HostTool `json:"tools,omitempty"` // host tools offered in this turn
	// HostToolsOnly: the turn offers no built-in browser tools (see
	// MessageSendRequest.HostToolsOnly).
	HostToolsOnly bool  `json:"host_tools_only,omitempty"`
	Usage         Usage `json:"usage"`          // model tokens of the turn's steps
	ContextTokens int64 `json:"context_tokens"` // input tokens of the latest step
	// TraceParent is the W3C trace context of the turn's trace (set when the
	// turn starts and tracing is on): a resumed turn continues the same trace.
	TraceParent string    `json:"traceparent,omitempty"`
	CreatedAt   time.Time `json:"created_at"`
	UpdatedAt   time.Time `json:"updated_at"`
	Offset      int64     `json:"offset"`
	// Checkpoint is what a waiting turn resumes from: stored with the turn
	// (StoredJSON), never sent.
	Checkpoint *TurnCheckpoint `json:"-"`
}

// TurnCheckpoint is a suspended turn's checkpoint: until ExpiresAt the turn
// can resume, from its step (Turn.Step) and the transcript in the store.
type TurnCheckpoint struct {
	ExpiresAt time.Time `json:"expires_at"`
}

// turnStored is how a turn is stored: the entity and its checkpoint.
type turnStored struct {
	*turnPlain
	Checkpoint *TurnCheckpoint `json:"checkpoint,omitempty"`
}

type turnPlain Turn

// StoredJSON is t as the store keeps it: the entity with its checkpoint.
func (t *Turn) StoredJSON() ([]byte, error) {
	_, stored, err := t.Encode()
	return stored, err
}

// Encode is t as it is sent and as it is stored (StoredJSON), encoded once:
// the stored form is the sent one with its checkpoint, the member turnStored
// adds last.
func (t *Turn) Encode() (sent, stored []byte, err error) {
	if sent, err = json.Marshal(t); err != nil {
		return nil, nil, err
	}
	stored, err = withMember(sent, "checkpoint", t.Checkpoint)
	return sent, stored, err
}

// UnmarshalJSON reads a turn as sent or as stored (with its checkpoint).
func (t *Turn) UnmarshalJSON(b []byte) error {
	v := turnStored{turnPlain: (*turnPlain)(t)}
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	t.Checkpoint = v.Checkpoint
	return nil
}

// Message roles and statuses.
const (
	RoleUser      = "user"
	RoleAssistant = "assistant"
	// RoleSummary is a summary of the session's earlier messages, up to and
	// including SummaryOfSeq; the model sees it instead of them.
	RoleSummary = "summary"

	MessageStreaming   = "streaming"
	MessageComplete    = "complete"
	MessageInterrupted = "interrupted" // the stream ended early (stop, crash); Text holds what arrived
	MessageError       = "error"       // a visible error message of a failed turn
)

// ToolCall is a tool call requested by the model, as stored on its message.
type ToolCall struct {
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
}

// Message is one entry of a session's conversation.
type Message struct {
	ID        string     `json:"id"`
	SessionID string     `json:"session_id"`
	TurnID    string     `json:"turn_id"`
	UserID    string     `json:"user_id"`
	Seq       int64      `json:"seq"` // order within the session, from 1
	Role      string     `json:"role"`
	Text      string     `json:"text"`
	ToolCalls []ToolCall `json:"tool_calls,omitempty"`
	Status    string     `json:"status"`
	Error     *TurnError `json:"error,omitempty"`
	Model     string     `json:"model,omitempty"`
	Usage     *Usage     `json:"usage,omitempty"` // the model step that wrote this message
	// SummaryOfSeq (summary messages) is the seq of the last message the summary
	// replaces, in the order the model reads the conversation.
	SummaryOfSeq int64 `json:"summary_of_seq,omitempty"`
	// Context (user messages) is what the page sent along with the message.
	Context   *MessageContext `json:"context,omitempty"`
	CreatedAt time.Time       `json:"created_at"`
	UpdatedAt time.Time       `json:"updated_at"`
	Offset    int64           `json:"offset"`
}

// RTC statuses. queued is the state of a call waiting for the previous call of its
// session to end: RTCs are delivered one at a time. The model sees "[Tool Pending]"
// for every non-terminal status.
const (
	RTCQueued    = "queued"
	RTCPending   = "pending"
	RTCSent      = "sent"
	RTCExecuting = "executing"
	RTCCompleted = "completed"
	RTCFailed    = "failed"
	RTCTimeout   = "timeout"
	RTCRejected  = "rejected"
)

// RTCTerminal reports whether an RTC in status s is final.
func RTCTerminal(s string) bool {
	switch s {
	case RTCCompleted, RTCFailed, RTCTimeout, RTCRejected:
		return true
	}
	return false
}

// rtcRank orders the non-terminal states; transitions only move forward.
var rtcRank = map[string]int{RTCQueued: 0, RTCPending: 1, RTCSent: 2, RTCExecuting: 3}

// RTCTransitionAllowed reports whether an RTC may move from status from to to.
func RTCTransitionAllowed(from, to string) bool {
	if RTCTerminal(from) {
		return false
	}
	if RTCTerminal(to) {
		return true
	}
	f, ok1 := rtcRank[from]
	t, ok2 := rtcRank[to]
	return ok1 && ok2 && t > f
}

// RTC executors: the browser of the session's device (the default, empty) or
// the server itself (tools of MCP servers). The browser confirms a server call
// that needs it (v1.rtc.approve) but never runs it.
const (
	RTCExecutorBrowser = ""
	RTCExecutorServer  = "server"
)

// RTC is one remote tool call, executed by the browser of the session's device,
// or by the server for the tools of MCP servers (Executor "server").
type RTC struct {
	ID                string          `json:"id"`
	SessionID         string          `json:"session_id"`
	TurnID            string          `json:"turn_id"`
	UserID            string          `json:"user_id"`
	MessageID         string          `json:"message_id"` // the assistant message that requested it
	ToolCallID        string          `json:"tool_call_id"`
	Seq               int             `json:"seq"`  // order in the turn, from 1
	Step              int             `json:"step"` // model step of the turn that requested it
	ToolName          string          `json:"tool_name"`
	Arguments         json.RawMessage `json:"arguments"`
	Status            string          `json:"status"`
	NeedsConfirmation bool            `json:"needs_confirmation"`
	Decision          *Decision       `json:"decision,omitempty"`    // the person's answer, when asked (or a standing approval)
	Executor          string          `json:"executor,omitempty"`    // "server" for MCP tools; empty: the browser
	App               string          `json:"app,omitempty"`         // the path of the tool's view on the server (MCP Apps)
	Policy            *CallPolicy     `json:"policy,omitempty"`      // what decides again, at delivery and start, whether the call may run
	TimeoutMS         int64           `json:"timeout_ms"`            // budget from delivery to deadline
	DeadlineAt        *time.Time      `json:"deadline_at,omitempty"` // set when delivered (pending)
	Output            json.RawMessage `json:"output,omitempty"`
	// StructuredOutput is a server call's structured result (an MCP tool's
	// structuredContent, a JSON object), kept apart from Output for the
	// call's view; the model reads Output.
	StructuredOutput json.RawMessage `json:"structured_output,omitempty"`
	Error            string          `json:"error,omitempty"`
	// Progress is the last progress an MCP server reported for a running server
	// call (notifications/progress), written at most once a second per call.
	Progress *RTCProgress `json:"progress,omitempty"`
	// TaskID is the MCP task a server call became (its tool runs as a task):
	// after a restart, the worker waits for that task instead of calling the
	// tool again.
	TaskID   string `json:"task_id,omitempty"`
	ClientID string `json:"client_id,omitempty"` // the submission that ended it
	// TraceParent is the W3C trace context of the call's span in its turn's
	// trace (tracing on only); the browser may put its own spans under it.
	TraceParent string    `json:"traceparent,omitempty"`
	CreatedAt   time.Time `json:"created_at"`
	UpdatedAt   time.Time `json:"updated_at"`
	Offset      int64     `json:"offset"`
	// Audit is the state of the call's audit record: stored with the RTC
	// (StoredJSON), never sent.
	Audit *AuditState `json:"-"`
}

// Approved reports whether the person allowed this very call when asked
// (v1.rtc.approve, or an approval sent with executing): its Decision is an
// allow that is not a standing "Allow for this chat". The decision is the one
// record of consent.
func (r *RTC) Approved() bool {
	return r.Decision != nil && r.Decision.Decision == DecisionAllow && !r.Decision.Standing
}

// rtcStored is how an RTC is stored: the entity and its audit state.
type rtcStored struct {
	*rtcPlain
	// Approved is read from the decision; it is written for nodes and clients
	// of earlier releases, which read it instead (ignored when read).
	Approved bool        `json:"approved,omitempty"`
	Audit    *AuditState `json:"audit_state,omitempty"`
}

type rtcPlain RTC

// rtcSent is how an RTC is sent: the entity, and "approved" (see rtcStored).
type rtcSent struct {
	*rtcPlain
	Approved bool `json:"approved,omitempty"`
}

// MarshalJSON writes r as it is sent.
func (r RTC) MarshalJSON() ([]byte, error) {
	return json.Marshal(rtcSent{rtcPlain: (*rtcPlain)(&r), Approved: r.Approved()})
}

// StoredJSON is r as the store keeps it: the entity with its audit state.
func (r *RTC) StoredJSON() ([]byte, error) {
	_, stored, err := r.Encode()
	return stored, err
}

// Encode is r as it is sent and as it is stored (StoredJSON), encoded once:
// the stored form is the sent one with its audit state, the member rtcStored
// adds last.
func (r *RTC) Encode() (sent, stored []byte, err error) {
	if sent, err = r.MarshalJSON(); err != nil {
		return nil, nil, err
	}
	stored, err = withMember(sent, "audit_state", r.Audit)
	return sent, stored, err
}

// UnmarshalJSON reads an RTC as sent or as stored (with its audit state).
func (r *RTC) UnmarshalJSON(b []byte) error {
	v := rtcStored{rtcPlain: (*rtcPlain)(r)}
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	r.Audit = v.Audit
	return nil
}

// RTCProgress is how far a server call has got, as its MCP server reports it:
// Progress so far, of Total when the server knows it (0: unknown), and a short
// Message (at most ProgressMessageBytes).
type RTCProgress struct {
	Progress float64 `json:"progress"`
	Total    float64 `json:"total,omitempty"`
	Message  string  `json:"message,omitempty"`
}

// ProgressMessageBytes bounds the message of a server call's progress.
const ProgressMessageBytes = 256

// CallPolicy is what the server needs to decide again whether a call may run
// when it is delivered (after the calls before it in its step) and, for a
// server call, when it starts: the work mode and the "Allow for this chat" list
// may have changed since the model asked. Kind is the tool's kind (read, write,
// script, ask, host, server), HostApproval a host tool's needsApproval, and
// AskTimeoutMS the budget to wait for a person should the call come to need one
// (0: TimeoutMS is that budget already).
type CallPolicy struct {
	Kind         string `json:"kind"`
	HostApproval string `json:"host_approval,omitempty"`
	AskTimeoutMS int64  `json:"ask_timeout_ms,omitempty"`
}

// Update types on the Topic channel.
const (
	UpdSessionCreated = "session.created"
	UpdSessionUpdated = "session.updated"
	UpdTurnCreated    = "turn.created"
	UpdTurnUpdated    = "turn.updated"
	UpdMessageCreated = "message.created"
	UpdMessageUpdated = "message.updated"
	UpdRTCUpdated     = "rtc.updated"
)

// Update is one Topic event: the entity changes one transaction made for one
// user, with the per-user offset assigned in that transaction. Each entity is
// carried at most once, as it is after the commit, with the update's offset.
type Update struct {
	Offset  int64    `json:"offset"`
	Epoch   string   `json:"epoch"`
	Changes []Change `json:"changes"`
	UserID  string   `json:"-"`
	// Payload is the update as its store wrote it, set only on the updates
	// a commit hook receives (nil on updates read back or decoded): what is
	// published, not encoded again. It is neither sent nor stored.
	Payload []byte `json:"-"`
}

// Change is one entity of an update: its whole state after the commit.
// Value is the entity itself in the process that committed the change (a
// copy its Data was encoded from, with the fields the store keeps but does
// not send): readers in that process take it instead of decoding Data. It is
// shared with the store's own decoded rows, so no reader may write through
// it (take a copy to change). It is neither sent nor stored.
type Change struct {
	Type  string          `json:"type"`
	Data  json.RawMessage `json:"data"`
	Value Keyed           `json:"-"`
}

// Keyed is an entity a Topic change can carry: TopicKey names it among all
// the user's entities (its kind and id).
type Keyed interface{ TopicKey() string }

func (s *Session) TopicKey() string { return "session/" + s.ID }
func (t *Turn) TopicKey() string    { return "turn/" + t.ID }
func (m *Message) TopicKey() string { return "message/" + m.ID }
func (r *RTC) TopicKey() string     { return "rtc/" + r.ID }

// CallDelta is a Live event: a piece of a tool call while the model writes
// it, before the call is an RTC. The step's RTCs replace what the pieces
// built (they come in one Topic update); Live may lose pieces.
type CallDelta struct {
	Type       string `json:"type"` // always "tool_call.delta"
	SessionID  string `json:"session_id"`
	TurnID     string `json:"turn_id"`
	Step       int    `json:"step"`                   // the turn's step, as its RTCs will carry it
	Index      int    `json:"index"`                  // the call's place among the step's calls, from 0
	ToolCallID string `json:"tool_call_id,omitempty"` // the model's id, once it said it
	Name       string `json:"name,omitempty"`         // the tool, once the model said it
	Attempt    string `json:"attempt"`                // the model's stream it comes from: a step streamed again writes its calls anew
	Seq        int64  `json:"seq"`                    // from 1 per call and attempt
	Delta      string `json:"delta"`                  // the next piece of the arguments' JSON text
}

// CallDeltaType is the type of a CallDelta.
const CallDeltaType = "tool_call.delta"

// Delta is one Live event: a chunk of a streaming message.
type Delta struct {
	Type      string `json:"type"` // always "message.delta"
	SessionID string `json:"session_id"`
	MessageID string `json:"message_id"`
	Seq       int64  `json:"seq"` // from 1 per message
	Kind      string `json:"kind"`
	Delta     string `json:"delta"`
}
