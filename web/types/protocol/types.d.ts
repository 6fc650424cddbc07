export type WorkMode = "manual" | "edit" | "plan" | "bypass";
export declare const WORK_MODES: readonly WorkMode[];
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
    work_mode: WorkMode | string;
    status: "open" | "closed";
    deleted?: boolean;
    active_turn_id?: string;
    /** Totals of the session's finished turns. */
    usage?: Usage;
    /** Input tokens of the latest model step: how full the model's context is. */
    context_tokens?: number;
    created_at: string;
    updated_at: string;
    offset: number;
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
}
export interface Turn {
    id: string;
    session_id: string;
    user_id: string;
    seq: number;
    user_message_id: string;
    status: TurnStatus;
    step: number;
    /** `compact` for a turn queued by `v1.session.compact`; absent for a message's turn. */
    kind?: string;
    /** A compact turn's instruction (what the summary keeps). */
    instruction?: string;
    /** The failed or stopped turn this one retries (`v1.turn.retry`). */
    retry_of?: string;
    tools?: HostToolSpec[];
    error?: TurnError;
    usage?: Usage;
    context_tokens?: number;
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
    /** "server": a tool of an MCP server, executed by the server; the browser only confirms it. */
    executor?: "server";
    /** A server call the person approved (`v1.rtc.approve`). */
    approved?: boolean;
    timeout_ms: number;
    deadline_at?: string;
    output?: unknown;
    error?: string;
    client_id?: string;
    created_at: string;
    updated_at: string;
    offset: number;
}
export declare const RTC_TERMINAL: ReadonlySet<RtcStatus>;
export declare const TURN_TERMINAL: ReadonlySet<TurnStatus>;
export type UpdateType = "session.created" | "session.updated" | "turn.created" | "turn.updated" | "message.created" | "message.updated" | "rtc.updated";
/** One Topic event. `data` is the whole entity after the change. */
export interface Update {
    offset: number;
    epoch: string;
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
export interface MessageSendResult {
    session_id: string;
    message_id: string;
    turn_id: string;
}
/** Sent with a message for the model: the page's `/AGENT.md` (≤ 32 KiB). */
export interface MessageContext {
    agent_md?: string;
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
export type ErrorCode = "invalid_argument" | "unauthenticated" | "forbidden" | "not_found" | "unknown_method" | "conflict" | "too_large" | "rate_limited" | "internal" | "unavailable" | "network";
/** A failed method call. `temporary` says a retry may succeed. */
export declare class RpcError extends Error {
    readonly code: ErrorCode;
    readonly temporary: boolean;
    readonly name = "RpcError";
    constructor(code: ErrorCode, message: string, temporary: boolean);
}
/**
 * Maps an error thrown by centrifuge-js (a plain `{code, message, temporary?}`
 * object, not an Error) to an RpcError. Client-side codes (< 100: timeout,
 * disconnected, …) and Centrifuge's own server errors mean "the call did not get
 * through": temporary network failures.
 */
export declare function toRpcError(err: unknown): RpcError;
/** True for errors where retrying the same request later can succeed. */
export declare function isRetryable(err: unknown): boolean;
