import { type Prompt, type PromptAnswer } from "../executor/prompts.js";
import type { Message, MessageSendResult, Rtc, Session, Turn, TurnQueuedResult, WorkMode } from "../protocol/types.js";
import { RpcError } from "../protocol/types.js";
import { type ConnectionState, type ConnectionStatus } from "../realtime/connection.js";
import { EntityStore } from "../realtime/entities.js";
import { ScriptRunner } from "../script/runner.js";
import { SearchClient } from "../tools/search/client.js";
import { ToolRegistry, type HostToolDefinition } from "../tools/registry.js";
import { Emitter } from "../util/emitter.js";
import { VirtualFS } from "../vfs/vfs.js";
import type { AgentEvents, AgentOptions, SendOptions } from "./types.js";
/** Creates an agent, opens its storage and connects. */
export declare function createAgent(options: AgentOptions): Promise<Agent>;
export declare class Agent {
    readonly userId: string;
    readonly deviceId: string;
    private readonly db;
    readonly vfs: VirtualFS;
    readonly events: Emitter<AgentEvents>;
    /** Identifies this tab in the journal and the lease. */
    readonly tabId: string;
    readonly serverUrl: string;
    readonly tools: ToolRegistry;
    readonly store: EntityStore;
    readonly script: ScriptRunner;
    /** Runs grep and find in a worker of the sandbox frame. */
    readonly search: SearchClient;
    private readonly conn;
    private readonly topic;
    private readonly live;
    private readonly executor;
    private readonly promptBoard;
    private readonly leadership;
    private readonly hydrating;
    private readonly ready;
    private destroyed;
    private started;
    defaultWorkMode: WorkMode;
    /** Counters of the Topic rules at work (diagnostics, tests). */
    readonly stats: {
        refills: number;
        refilled: number;
        resets: number;
        lastReset: string;
        duplicates: number;
    };
    constructor(options: AgentOptions, userId: string, deviceId: string, db: IDBDatabase, vfs: VirtualFS, firstToken?: string);
    get connectionState(): ConnectionState;
    /** The connection's state with the time of the next attempt and the cause of the last failure. */
    get connectionStatus(): ConnectionStatus;
    /** While offline and waiting to retry: tries to connect now. */
    reconnectNow(): void;
    /** True when this tab is the one executing tools for this user and device. */
    get isExecutor(): boolean;
    /** Connects (createAgent does); after a `relogin`, call it again once the user logged in. */
    connect(): void;
    /** Calls any v1 method over the socket. */
    call<T>(method: string, params?: object): Promise<T>;
    destroy(): void;
    /**
     * Sends a user message; the turn runs on the server, its progress arrives as
     * events. `/AGENT.md` of the virtual file system, when there, goes with it as
     * `context.agent_md` (capped at 32 KiB).
     */
    send(text: string, opts?: SendOptions): Promise<MessageSendResult>;
    /**
     * Starts a new session from a user message of another (`v1.session.fork`): the
     * finished turns before it are copied, the message is replaced by `text` (or
     * kept) and answered there. The source session is unchanged.
     */
    fork(sessionId: string, messageId: string, text?: string): Promise<MessageSendResult>;
    /**
     * Queues a compaction of the session (`v1.session.compact`): the model writes a
     * summary (a message with role `summary`) that stands in for the messages before
     * it from then on; they stay in the history. `instruction` says what to keep.
     */
    compact(sessionId: string, instruction?: string): Promise<TurnQueuedResult>;
    /**
     * Runs the session's latest turn again when it failed or was stopped
     * (`v1.turn.retry`). The client_id is derived from the turn, so asking twice,
     * from two tabs, after a reload or after a lost answer queues one retry: the
     * server answers a repeat with the first result.
     */
    retry(sessionId: string, turnId: string): Promise<TurnQueuedResult>;
    /** Stops the running turn of a session (`v1.turn.stop`). */
    stop(sessionId: string): Promise<Turn>;
    sessions(): Session[];
    session(id: string): Session | undefined;
    /** True when this device created the session (and so may send to it and runs its tools). */
    ownsSession(id: string): boolean;
    messages(sessionId: string): Message[];
    turns(sessionId: string): Turn[];
    rtcs(sessionId: string): Rtc[];
    /** What a message shows now: the Live text while streaming, else the stored text. */
    messageText(m: Message): string;
    /** Makes sure a session's messages, turns and RTCs are loaded (once per reset). */
    loadSession(sessionId: string): Promise<void>;
    renameSession(id: string, title: string): Promise<Session>;
    setWorkMode(id: string, mode: WorkMode): Promise<Session>;
    closeSession(id: string): Promise<Session>;
    openSession(id: string): Promise<Session>;
    deleteSession(id: string): Promise<Session>;
    /**
     * Offers a host function to the model (sent with every message) and to scripts
     * (`rtcAgent.call(name, args)`). The server decides whether a call needs the
     * user's confirmation (work mode), exactly as for the built-in tools.
     */
    registerTool(def: HostToolDefinition): void;
    unregisterTool(name: string): void;
    /** Open confirmations and askUser forms (of any tab of this device). */
    prompts(): Prompt[];
    answer(id: string, answer: PromptAnswer): void;
    private changeSession;
    private wire;
}
/**
 * The idempotency key of a turn's retry. Only a session's latest turn can be
 * retried and a retried turn is no longer the latest, so one key per turn is
 * enough; a retry of the retry is another turn, with its own key.
 */
export declare function retryClientId(turnId: string): string;
/**
 * Calls a method whose params carry a `client_id` (the server answers a repeat
 * with the first result): temporary failures are retried with the same params,
 * five attempts in all, with backoff.
 */
export declare function callIdempotent<T>(call: <R>(method: string, params: object) => Promise<R>, method: string, params: {
    client_id: string;
} & Record<string, unknown>, opts?: {
    attempts?: number;
    baseMs?: number;
}): Promise<T>;
/** The `sub` claim of a JWT, read without verifying (only to name local storage). */
export declare function subjectOf(token: string): string | undefined;
export { RpcError };
