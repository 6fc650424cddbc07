package protocol

import (
	"encoding/json"
	"strings"
	"time"
)

// MethodAuditList lists the audit records of the caller's sessions.
const MethodAuditList = "v1.audit.list"

// Decision outcomes of an RTC's audit record.
const (
	DecisionAllowed   = "allowed"   // it ran: by the work mode or by a person
	DecisionDenied    = "denied"    // refused: by the work mode (plan) or by a person
	DecisionTimeout   = "timeout"   // nobody answered the confirmation in time
	DecisionCancelled = "cancelled" // the turn ended before anyone decided
	DecisionShown     = "shown"     // askUser: the questions went to the person
)

// Who decided.
const (
	DecidedByWorkMode = "work_mode" // automatically, by the session's work mode
	DecidedByUser     = "user"      // a person, on the device named in the decision
	DecidedByServer   = "server"    // the server (deadline, stop, failed turn)
)

// AuditDecision is who allowed or refused a call, when and why. Outcome is empty
// while a confirmation is open.
type AuditDecision struct {
	Outcome  string     `json:"outcome,omitempty"`
	By       string     `json:"by,omitempty"`
	DeviceID string     `json:"device_id,omitempty"` // the device a person answered on
	At       *time.Time `json:"at,omitempty"`
	Reason   string     `json:"reason,omitempty"`
	// Scope is how far a person's approval reaches: "once" or "session" ("Allow
	// for this chat"); Standing marks a call that ran unasked because of such an
	// earlier approval (DeviceID and At are then the approval's).
	Scope    string `json:"scope,omitempty"`
	Standing bool   `json:"standing,omitempty"`
}

// AuditRecord is the audit trail of one RTC: what the model asked for, who let it
// run, what came back and when each step happened. It is written in the
// transactions that change the RTC.
type AuditRecord struct {
	RTCID             string          `json:"rtc_id"`
	UserID            string          `json:"user_id"`
	SessionID         string          `json:"session_id"`
	TurnID            string          `json:"turn_id"`
	DeviceID          string          `json:"device_id"` // the session's device, which executes its calls
	ToolName          string          `json:"tool_name"`
	ToolCallID        string          `json:"tool_call_id"`
	Arguments         json.RawMessage `json:"arguments"`
	WorkMode          string          `json:"work_mode"`
	NeedsConfirmation bool            `json:"needs_confirmation"`
	Decision          AuditDecision   `json:"decision"`
	Status            string          `json:"status"`
	Output            json.RawMessage `json:"output,omitempty"`
	Error             string          `json:"error,omitempty"`
	CreatedAt         time.Time       `json:"created_at"`
	DeliveredAt       *time.Time      `json:"delivered_at,omitempty"` // became pending
	StartedAt         *time.Time      `json:"started_at,omitempty"`   // the browser reported executing
	EndedAt           *time.Time      `json:"ended_at,omitempty"`     // terminal
	// Execution is the browser's own report of running the call (its clock,
	// clamped to the server's view of the call).
	Execution *RTCExecution `json:"execution,omitempty"`
	TraceID   string        `json:"trace_id,omitempty"`
}

// RTCExecution is the browser's account of running a call, sent with its result:
// when it started and ended (its clock) and how it went (Outcome: "ok", "error",
// "rejected").
type RTCExecution struct {
	StartedAt time.Time `json:"started_at"`
	EndedAt   time.Time `json:"ended_at"`
	Outcome   string    `json:"outcome"`
}

// AuditListRequest selects audit records of the caller: of one session
// (session_id) or of all the caller's sessions, created at or after since.
type AuditListRequest struct {
	SessionID string     `json:"session_id,omitempty"`
	Since     *time.Time `json:"since,omitempty"`
	Cursor    string     `json:"cursor,omitempty"`
	Limit     int        `json:"limit,omitempty"`
}

type AuditListResult struct {
	Records    []AuditRecord `json:"records"`
	NextCursor string        `json:"next_cursor,omitempty"`
}

// AuditState is what an RTC's audit record holds beyond the RTC itself. The
// store keeps it with the RTC (it is never sent), so that each transition
// writes the record from the RTC it read, without reading the record.
type AuditState struct {
	DeviceID          string        `json:"device_id"`
	WorkMode          string        `json:"work_mode"`
	NeedsConfirmation bool          `json:"needs_confirmation"`
	Decision          AuditDecision `json:"decision"`
	DeliveredAt       *time.Time    `json:"delivered_at,omitempty"`
	StartedAt         *time.Time    `json:"started_at,omitempty"`
	EndedAt           *time.Time    `json:"ended_at,omitempty"`
	Execution         *RTCExecution `json:"execution,omitempty"`
}

// State returns what the record holds beyond its RTC.
func (a *AuditRecord) State() *AuditState {
	return &AuditState{DeviceID: a.DeviceID, WorkMode: a.WorkMode, NeedsConfirmation: a.NeedsConfirmation, Decision: a.Decision,
		DeliveredAt: a.DeliveredAt, StartedAt: a.StartedAt, EndedAt: a.EndedAt, Execution: a.Execution}
}

// AuditRecordOf is r's audit record: the RTC with the state it carries
// (r.Audit), or nil when it carries none (a copy made by a fork, or an RTC
// stored before calls were audited).
func AuditRecordOf(r *RTC) *AuditRecord {
	s := r.Audit
	if s == nil {
		return nil
	}
	return &AuditRecord{RTCID: r.ID, UserID: r.UserID, SessionID: r.SessionID, TurnID: r.TurnID, DeviceID: s.DeviceID,
		ToolName: r.ToolName, ToolCallID: r.ToolCallID, Arguments: r.Arguments, WorkMode: s.WorkMode,
		NeedsConfirmation: s.NeedsConfirmation, Decision: s.Decision, Status: r.Status, Output: r.Output, Error: r.Error,
		CreatedAt: r.CreatedAt, DeliveredAt: s.DeliveredAt, StartedAt: s.StartedAt, EndedAt: s.EndedAt,
		Execution: s.Execution, TraceID: TraceID(r.TraceParent)}
}

// TraceID is the trace id of a W3C traceparent ("" when it is not one).
func TraceID(traceparent string) string {
	parts := strings.Split(traceparent, "-")
	if len(parts) != 4 || len(parts[1]) != 32 {
		return ""
	}
	return parts[1]
}
