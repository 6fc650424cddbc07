// Wire types of docs/protocol.md (v1). The Go types in internal/protocol are the
// source; these mirror their JSON encoding. Timestamps are RFC 3339 strings.

export type WorkMode = "manual" | "edit" | "plan" | "bypass";
export const WORK_MODES: readonly WorkMode[] = ["manual", "edit", "plan", "bypass"];

/**
 * Model tokens as the providers reported them. `cost_usd` is the price of those
 * tokens in US dollars when the server knows the model's prices (absent otherwise).
 */
export interface Usage {
  input_tokens: number;
  output_tokens: number;
  cost_usd?: number;
}

export interface Session {
  id: string;
  user_id: string;
  device_id: string;
  title: string;
  work_mode: WorkMode;
  status: "open" | "closed";
  deleted?: boolean;
  active_turn_id?: string;
  /** Totals of the session's finished turns. */
  usage?: Usage;
  /** Input tokens of the latest model step: how full the model's context is. */
  context_tokens?: number;
  /** Tools allowed for this chat ("Allow for this chat"); revoke with `v1.session.update` `revoke_approvals`. */
  approvals?: ToolApproval[];
  created_at: string;
  updated_at: string;
  offset: number;
}

/** One tool allowed for a whole chat: by which device, when, on which call's confirmation. */
export interface ToolApproval {
  tool: string;
  device_id: string;
  rtc_id: string;
  granted_at: string;
}

/**
 * What the server decides a call from, when it is created and again when it is
 * delivered or started: the tool's kind, a host tool's needsApproval and the
 * human-wait budget when `timeout_ms` is the execution one.
 */
export interface CallPolicy {
  kind: "read" | "write" | "script" | "ask" | "host" | "server";
  host_approval?: "always" | "never" | "arguments";
  ask_timeout_ms?: number;
}

/**
 * The person's decision on a call that needed it: allowed once, allowed for the
 * session (`standing`: by an earlier "Allow for this chat", without asking), or
 * denied with their reason; by which device and when.
 */
export interface Decision {
  decision: "allow" | "deny";
  scope: "once" | "session";
  standing?: boolean;
  reason?: string;
  device_id?: string;
  at: string;
}

export type TurnStatus = "queued" | "running" | "waiting" | "completed" | "failed" | "stopped";

export interface TurnError {
  category: string;
  message: string;
  retryable: boolean;
}

export interface HostToolSpec {
  name: string;
  description: string;
  parameters: unknown;
  /** The tool's `needsApproval`: `always` (or absent) as the work mode says, `never`, or `arguments` (the browser decides per call). */
  approval?: "always" | "never" | "arguments";
}

export interface Turn {
  id: string;
  session_id: string;
  user_id: string;
  seq: number;
  user_message_id: string;
  status: TurnStatus;
  step: number;
  /**
   * `compact` for a turn queued by `v1.session.compact`; `app` for a tool
   * view's call made after the view's own turn ended (`v1.app.call`), which
   * runs that call alone; absent for a message's turn.
   */
  kind?: string;
  /** A compact turn's instruction (what the summary keeps). */
  instruction?: string;
  /** The failed or stopped turn this one retries (`v1.turn.retry`). */
  retry_of?: string;
  tools?: HostToolSpec[];
  /** The turn's message was sent with `host_tools_only`: no built-in browser tools are offered. */
  host_tools_only?: boolean;
  error?: TurnError;
  usage?: Usage;
  context_tokens?: number;
  /** W3C trace context of the turn's trace, when the server traces. */
  traceparent?: string;
  created_at: string;
  updated_at: string;
  offset: number;
}

export interface ToolCall {
  id: string;
  name: string;
  arguments: unknown;
}

export type MessageStatus = "streaming" | "complete" | "interrupted" | "error";

export interface Message {
  id: string;
  session_id: string;
  turn_id: string;
  user_id: string;
  seq: number;
  /** `summary`: a compaction's summary, standing in for messages up to `summary_of_seq`. */
  role: "user" | "assistant" | "summary";
  text: string;
  status: MessageStatus;
  /** On a summary: the highest message seq it replaces for the model. */
  summary_of_seq?: number;
  /** On a user message: what the page sent along (its `/AGENT.md`). */
  context?: MessageContext;
  model?: string;
  usage?: Usage;
  tool_calls?: ToolCall[];
  error?: TurnError;
  created_at: string;
  updated_at: string;
  offset: number;
}

export type RtcStatus = "queued" | "pending" | "sent" | "executing" | "completed" | "failed" | "timeout" | "rejected";

export interface Rtc {
  id: string;
  session_id: string;
  turn_id: string;
  user_id: string;
  message_id: string;
  tool_call_id: string;
  seq: number;
  step: number;
  tool_name: string;
  arguments: unknown;
  status: RtcStatus;
  needs_confirmation: boolean;
  /** The decision on a call that needed the person (absent when none was asked for). */
  decision?: Decision;
  /** "server": a tool of an MCP server, executed by the server; the browser only confirms it. */
  executor?: "server";
  /** The path, on the server, of the tool's view (an MCP App) shown in the call's card. */
  app?: string;
  /** What the server decides the call from again at delivery and start. */
  policy?: CallPolicy;
  timeout_ms: number;
  deadline_at?: string;
  /** How far a running server call has got, as its MCP server reports it; written at most once a second. */
  progress?: RtcProgress;
  /** The MCP task a server call became, when its tool runs as a task. */
  task_id?: string;
  output?: unknown;
  /** A server call's structured result (an MCP tool's `structuredContent`), kept apart from `output` for the call's view. */
  structured_output?: Record<string, unknown>;
  error?: string;
  client_id?: string;
  /** W3C trace context of the call's span, when the server traces. */
  traceparent?: string;
  created_at: string;
  updated_at: string;
  offset: number;
}

/** A server call's progress (MCP `notifications/progress`): `progress` of `total` when known; `message` at most 256 bytes. */
export interface RtcProgress {
  progress: number;
  total?: number;
  message?: string;
}

/** The browser's account of running a call, sent with its result (`execution` of `v1.rtc.submit_result`). */
export interface RtcExecution {
  started_at: string;
  ended_at: string;
  outcome: "ok" | "error" | "rejected";
}

/** Who allowed or refused a call, when and why (`outcome` empty while a confirmation is open). */
export interface AuditDecision {
  outcome?: "allowed" | "denied" | "timeout" | "cancelled" | "shown";
  by?: "work_mode" | "user" | "server";
  device_id?: string;
  at?: string;
  reason?: string;
  scope?: string;
}

/** The audit trail of one call (`v1.audit.list`). */
export interface AuditRecord {
  rtc_id: string;
  user_id: string;
  session_id: string;
  turn_id: string;
  device_id: string;
  tool_name: string;
  tool_call_id: string;
  arguments: unknown;
  work_mode: string;
  needs_confirmation: boolean;
  decision: AuditDecision;
  status: RtcStatus;
  output?: unknown;
  error?: string;
  created_at: string;
  delivered_at?: string;
  started_at?: string;
  ended_at?: string;
  execution?: RtcExecution;
  trace_id?: string;
}

export interface AuditListResult {
  records: AuditRecord[];
  next_cursor?: string;
}

export const RTC_TERMINAL: ReadonlySet<RtcStatus> = new Set(["completed", "failed", "timeout", "rejected"]);
export const TURN_TERMINAL: ReadonlySet<TurnStatus> = new Set(["completed", "failed", "stopped"]);

export type UpdateType =
  | "session.created"
  | "session.updated"
  | "turn.created"
  | "turn.updated"
  | "message.created"
  | "message.updated"
  | "rtc.updated";

/**
 * One Topic event: every entity change one database commit made for the user,
 * at one offset. `changes` has at least one item; each entity (kind + id)
 * appears at most once, as it is after the commit, and carries the update's
 * offset as its own.
 */
export interface Update {
  offset: number;
  epoch: string;
  changes: UpdateChange[];
}

/** One entity of an update. `data` is the whole entity after the commit. Unknown types are ignored. */
export interface UpdateChange {
  type: UpdateType | string;
  data: unknown;
}

/** One Live event: a chunk of a streaming message. */
export interface Delta {
  type: "message.delta";
  session_id: string;
  message_id: string;
  seq: number;
  kind: string;
  delta: string;
}

/**
 * One Live event: a piece of a tool call the model is writing, before it is an
 * RTC (docs/protocol.md "Live channel"). Joined in `seq` order, the pieces of a
 * call (`turn_id`, `step`, `index`) are its arguments' JSON text so far.
 */
export interface CallDelta {
  type: "tool_call.delta";
  session_id: string;
  turn_id: string;
  step: number;
  index: number;
  tool_call_id?: string;
  name?: string;
  /** The model's stream the piece comes from: a step streamed again writes its calls anew. */
  attempt: string;
  seq: number;
  delta: string;
}

// Method results (the subset the SDK reads).

export interface MessageSendResult {
  session_id: string;
  message_id: string;
  turn_id: string;
}
/**
 * Sent with a message for the model: the page's `/AGENT.md` (≤ 32 KiB), and
 * what the chat's tool views asked the model to know since the last message
 * (at most 8, ≤ 16 KiB of text together; `tool` is set by the server).
 */
export interface MessageContext {
  agent_md?: string;
  views?: ViewContext[];
}

/** One tool view's context for the model (MCP Apps `ui/update-model-context`). */
export interface ViewContext {
  rtc_id: string;
  text: string;
  tool?: string;
}

/** `v1.session.compact` and `v1.turn.retry`: the turn that was queued. */
export interface TurnQueuedResult {
  session_id: string;
  turn_id: string;
}
export interface SessionListResult {
  sessions: Session[];
  next_cursor?: string;
  offset: number;
}
export interface MessageListResult {
  messages: Message[];
  next_cursor?: string;
  offset: number;
}
export interface MessageGetResult {
  message: Message;
  delta_seq: number;
}
export interface TurnListResult {
  turns: Turn[];
  next_cursor?: string;
  offset: number;
}
export interface RtcListResult {
  rtcs: Rtc[];
  next_cursor?: string;
  offset: number;
}
export interface UpdateListResult {
  epoch: string;
  top: number;
  updates: Update[];
  reset: boolean;
}
export interface SessionResult {
  session: Session;
}
export interface TurnResult {
  turn: Turn;
}
export interface RtcResult {
  rtc: Rtc;
}

/** The stable error codes of the protocol, plus `network` for transport failures. */
export type ErrorCode =
  | "invalid_argument"
  | "unauthenticated"
  | "forbidden"
  | "not_found"
  | "unknown_method"
  | "conflict"
  | "too_large"
  | "rate_limited"
  | "internal"
  | "unavailable"
  | "network";

const RPC_CODES: Record<number, ErrorCode> = {
  1400: "invalid_argument",
  1401: "unauthenticated",
  1403: "forbidden",
  1404: "not_found",
  1405: "unknown_method",
  1409: "conflict",
  1413: "too_large",
  1429: "rate_limited",
  1500: "internal",
  1503: "unavailable",
};

/** A failed method call. `temporary` says a retry may succeed. */
export class RpcError extends Error {
  override readonly name = "RpcError";
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly temporary: boolean,
  ) {
    super(message);
  }
}

/** A call that got no answer within the connection's deadline (a temporary network failure). */
export class RpcTimeout extends RpcError {
  constructor(ms: number) {
    super("network", `timeout: no answer within ${Math.round(ms / 100) / 10} s`, true);
  }
}

/**
 * Maps an error thrown by centrifuge-js (a plain `{code, message, temporary?}`
 * object, not an Error) to an RpcError. Client-side codes (< 100: timeout,
 * disconnected, …) and Centrifuge's own server errors mean "the call did not get
 * through": temporary network failures.
 */
export function toRpcError(err: unknown): RpcError {
  if (err instanceof RpcError) return err;
  const e = (err ?? {}) as { code?: unknown; message?: unknown; temporary?: unknown };
  const num = typeof e.code === "number" ? e.code : -1;
  const message = typeof e.message === "string" ? e.message : String(err);
  const code = RPC_CODES[num];
  if (code) {
    const temporary = e.temporary === true || code === "unavailable" || code === "rate_limited" || code === "internal";
    return new RpcError(code, message, temporary);
  }
  return new RpcError("network", message || "the call did not reach the server", true);
}

/** True for errors where retrying the same request later can succeed. */
export function isRetryable(err: unknown): boolean {
  return err instanceof RpcError ? err.temporary : true;
}
