// Public types of the headless API (createAgent).

import type { AskAnswer, Prompt, PromptAnswer } from "../executor/prompts.js";
import type { EntityChange } from "../realtime/entities.js";
import type { ConnectionState, ConnectionStatus } from "../realtime/connection.js";
import type { MethodName, MethodParams, MethodResult } from "../protocol/methods.js";
import type { Message, MessageSendResult, Rtc, Session, Turn, TurnQueuedResult, WorkMode } from "../protocol/types.js";
import type { Position } from "../state/db.js";
import type { WritingCall } from "../realtime/writing.js";
import type { AnyHostTool, HostToolDefinition, RtcOf, ToolArgs, ToolParameters, ToolTypes, ToolView } from "../tools/typed.js";
import type { ToolSpec } from "../tools/types.js";
import type { VirtualFS } from "../vfs/vfs.js";

export interface AgentOptions {
  /** The RTC Agent server, e.g. "https://agent.example.com". Default: this page's origin. */
  serverUrl?: string;
  /**
   * Returns a connection token (JWT) for the user; called to connect and again
   * before the token expires. Throw `ReloginRequired` (or return null) when the
   * user must log in again: the agent stops and emits `relogin`. Other errors are
   * retried with backoff.
   */
  getToken: () => Promise<string | null | undefined>;
  /** The user id; when omitted it is read from the first token's `sub`. */
  userId?: string;
  /** Overrides the stored device id (tests, or a host that manages its own). */
  deviceId?: string;
  /** Work mode of new sessions. Default "edit" (or the first of `modes`). */
  workMode?: WorkMode;
  /**
   * The work modes the UI offers (default: all four). The server enforces the
   * token's `modes` claim; give the same list here so the page offers only
   * what the server accepts.
   */
  modes?: readonly WorkMode[];
  /**
   * Host tools offered to the model with every message (see registerTool). In
   * `createAgent({tools})` each is typed by its own `parameters`; elsewhere
   * (`element.options`) write them with `defineTool`.
   */
  tools?: readonly AnyHostTool[];
  /**
   * Offer the tools the page registers with WebMCP (`navigator.modelContext`,
   * when the browser has it) as host tools. Default true.
   */
  webmcp?: boolean;
  /**
   * URL of sandbox.html for the script tool (and grep/find). Default: next to the
   * SDK's code, right when the SDK is loaded from the server's `/sdk/`. An SDK
   * bundled into your app must set it: `${serverUrl}/sdk/sandbox.html`.
   */
  sandboxUrl?: string;
  /** Deadline of one script run. Default 30 000 ms. */
  scriptTimeoutMs?: number;
  /** Memory one script run may allocate; past it the run is stopped. Default 256 MiB. */
  scriptMemoryLimitBytes?: number;
  /** Deadline of one grep or find; an overrunning search is stopped. Default 10 000 ms. */
  searchTimeoutMs?: number;
  /**
   * The Web Locks API used to elect the one executing tab. Default
   * `navigator.locks`; `null` forces the IndexedDB lease fallback.
   */
  locks?: LockManager | null;
  /**
   * Ask the browser once to keep this origin's storage (`navigator.storage.persist()`),
   * so the journal, outbox and files are not evicted under storage pressure.
   * Default true; not asked again once granted or refused.
   */
  persistStorage?: boolean;
  /** Reconnect delays of the WebSocket. Defaults 500 ms and 20 s. */
  /**
   * Deadline of a connection attempt and of a call, 10 s by default. It doubles
   * after each timeout (up to 16 times), so a backlog that takes longer on a slow
   * link still arrives.
   */
  timeoutMs?: number;
  minReconnectDelayMs?: number;
  maxReconnectDelayMs?: number;
  /** Outbox retry base (1 s) and cap (30 s). */
  retryBaseMs?: number;
  retryCapMs?: number;
}

export interface AgentEvents {
  /** Connection state changes. */
  state: ConnectionState;
  /** The connection's state, when it retries next and why it failed (for a UI). */
  status: ConnectionStatus;
  /** An entity changed (Topic update, list load or call result). */
  change: EntityChange;
  /** The streaming text of a message changed (Live deltas). */
  text: { messageId: string; sessionId: string; text: string };
  /** The tool calls the model is writing in a session changed (see `writingCalls`). */
  writing: { sessionId: string };
  /** Local state was dropped and reloaded from the server. */
  reset: { reason: string; epoch: string; offset: number };
  /** The token could not be renewed: the host must log the user in again. */
  relogin: { reason: string };
  /** Open questions for the person (confirmations, askUser, MCP servers' questions) changed. */
  prompts: Prompt[];
  /** This tab became (or stopped being) the one that executes tools. */
  leader: boolean;
  /** The lists of a session were loaded. */
  hydrated: string;
  /** Something failed in the background (logged; the agent keeps going): an `RpcError` from the server, else an `Error`. */
  error: Error;
}

export interface SendOptions {
  /** Continue this session; omitted = start a new one. */
  sessionId?: string;
  /** Work mode (for a new session, or to change an existing one's). */
  workMode?: WorkMode;
}

/** The params argument of `Agent.call`: optional when the method needs none. */
export type CallParams<M extends MethodName> = Record<string, never> extends MethodParams<M> ? [params?: MethodParams<M>] : [params: MethodParams<M>];

/** Subscribes to an event; the returned function unsubscribes. */
export interface AgentEventSource<Events> {
  on<K extends keyof Events>(event: K, listener: (value: Events[K]) => void): () => void;
}

/**
 * What the agent holds of the server's state, read-only: the maps by id and the
 * sorted lists of one session. The <rtc-agent> element renders from the same
 * views. They change in place as updates arrive (listen to `change`).
 */
export interface EntityView {
  readonly sessions: ReadonlyMap<string, Session>;
  readonly turns: ReadonlyMap<string, Turn>;
  readonly messages: ReadonlyMap<string, Message>;
  readonly rtcs: ReadonlyMap<string, Rtc>;
  /** Sessions not deleted, newest first. */
  listSessions(): readonly Session[];
  /** A session's messages, turns and RTCs, in order (empty until loaded, see loadSession). */
  messagesOf(sessionId: string): readonly Message[];
  turnsOf(sessionId: string): readonly Turn[];
  rtcsOf(sessionId: string): readonly Rtc[];
  /** True once a session's messages, turns and RTCs were loaded. */
  isHydrated(sessionId: string): boolean;
  /** The stored position in the user's update stream (null before the first load). */
  position(): Position | null;
}

/** Counters of the update-stream rules at work (diagnostics, tests). */
export interface AgentStats {
  refills: number;
  refilled: number;
  resets: number;
  lastReset: string;
  duplicates: number;
}

/** The tools the model is offered (built-in and host tools). */
export interface AgentTools {
  list(): ToolSpec[];
  /** A host tool's own view of one call (its `render`), or null: what the chat shows in the call's card. */
  view(name: string, view: ToolView): Node | null;
}

/**
 * The headless agent (from createAgent): it connects, keeps the user's sessions in
 * sync, executes tools when this tab leads and exposes all of it to a UI.
 * `TT`, the tool map of the host's tools (`InferToolTypes<typeof tools>`),
 * types the calls of `rtcs()` and `prompts()` by tool (`RtcOf`); it is the
 * host's word for which tools it registers, like a chat hook's message type.
 */
export interface Agent<TT extends ToolTypes = ToolTypes> {
  readonly events: AgentEventSource<AgentEvents>;
  /** Identifies this tab among the tabs of the same user and device. */
  readonly tabId: string;
  readonly serverUrl: string;
  readonly userId: string;
  readonly deviceId: string;
  /** The virtual file system the tools work on (IndexedDB, per user and device). */
  readonly vfs: VirtualFS;
  readonly tools: AgentTools;
  /** Read-only views of the synced sessions, turns, messages and RTCs. */
  readonly store: EntityView;
  readonly stats: Readonly<AgentStats>;
  /** Work mode of new sessions. */
  defaultWorkMode: WorkMode;
  /** The work modes this page offers (`modes` of the options; all when unset). */
  readonly modes: readonly WorkMode[];

  readonly connectionState: ConnectionState;
  /** The connection's state with the time of the next attempt and the cause of the last failure. */
  readonly connectionStatus: ConnectionStatus;
  /** True when this tab is the one executing tools for this user and device. */
  readonly isExecutor: boolean;
  /** While offline and waiting to retry: tries to connect now. */
  reconnectNow(): void;
  /** Connects (createAgent does); after a `relogin`, call it again once the user logged in. */
  connect(): void;
  /**
   * Calls a v1 method of the protocol over the socket: `agent.call("v1.session.get",
   * { session_id })` answers `{ session }`. An unknown method or wrong params do
   * not compile.
   */
  call<M extends MethodName>(method: M, ...params: CallParams<M>): Promise<MethodResult<M>>;
  destroy(): void;

  /**
   * Sends a user message (with `/AGENT.md` of the VFS as context when there,
   * and the contexts the chat's tool views kept for the model).
   */
  send(text: string, opts?: SendOptions): Promise<MessageSendResult>;
  /**
   * Keeps the context a tool view of chat `sessionId` (the view of call
   * `rtcId`, MCP Apps `ui/update-model-context`) asks the model to know: the
   * latest of each view goes with the next message sent to that chat, then is
   * dropped; empty text drops it now. False when `text` is over 16 KiB.
   */
  setViewContext(sessionId: string, rtcId: string, text: string): boolean;
  /** A new session from a user message of another, with `text` in its place (or kept). */
  fork(sessionId: string, messageId: string, text?: string): Promise<MessageSendResult>;
  /** Queues a summary turn that stands in for the messages before it. */
  compact(sessionId: string, instruction?: string): Promise<TurnQueuedResult>;
  /** Runs the session's latest failed or stopped turn again (once, whoever asks). */
  retry(sessionId: string, turnId: string): Promise<TurnQueuedResult>;
  /** Stops the running turn of a session. */
  stop(sessionId: string): Promise<Turn>;

  /** The sessions (not deleted), newest first: a new array on each call. */
  sessions(): Session[];
  session(id: string): Session | undefined;
  /** True when this device created the session (and so may send to it and runs its tools). */
  ownsSession(id: string): boolean;
  /** A session's messages, turns and RTCs in order: new arrays on each call (see store for views). */
  messages(sessionId: string): Message[];
  turns(sessionId: string): Turn[];
  rtcs(sessionId: string): RtcOf<TT>[];
  /** What a message shows now: the streaming text while it streams, else the stored text. */
  messageText(m: Message): string;
  /**
   * The tool calls the model is writing in a session, before they are RTCs: each
   * with its name once the model said it and its arguments so far (partly read).
   * They go once the step's RTCs arrive or the turn ends (event `writing`).
   */
  writingCalls(sessionId: string): readonly WritingCall[];
  /** Makes sure a session's messages, turns and RTCs are loaded. */
  loadSession(sessionId: string): Promise<void>;
  renameSession(id: string, title: string): Promise<Session>;
  setWorkMode(id: string, mode: WorkMode): Promise<Session>;
  /** Takes back "Allow for this chat" of a tool (listed in `session.approvals`): its next calls ask again. */
  revokeApproval(id: string, tool: string): Promise<Session>;
  /**
   * "Continue here": this device runs the session's tools and sends to it from
   * now on (`v1.session.move`). While a call runs on the other device it waits
   * for the call to end (telling `onWait` why) and then moves; `signal` gives
   * up waiting.
   */
  moveSessionHere(id: string, opts?: { signal?: AbortSignal; onWait?: (reason: string) => void }): Promise<Session>;
  closeSession(id: string): Promise<Session>;
  openSession(id: string): Promise<Session>;
  deleteSession(id: string): Promise<Session>;

  /**
   * Offers a host function to the model (sent with every message) and to scripts
   * (`rtcAgent.call(name, args)`). `parameters` is a JSON Schema or a Standard
   * Schema (zod 4, valibot, …); `execute` gets the validated arguments, typed from
   * it (`ToolArgs<P>`), and a wrong argument gives the model an error naming the field.
   */
  registerTool<const P extends ToolParameters = ToolParameters, R = unknown>(def: HostToolDefinition<P, ToolArgs<P>, string, R>): void;
  unregisterTool(name: string): void;
  /** Open confirmations and askUser forms (of any tab of this device). */
  prompts(): Prompt<TT>[];
  answer(id: string, answer: PromptAnswer): void;
}

export type { AskAnswer, Prompt, PromptAnswer, Position };
