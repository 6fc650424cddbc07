import type { AskAnswer, Prompt, PromptAnswer } from "../executor/prompts.js";
import type { EntityChange } from "../realtime/entities.js";
import type { ConnectionState, ConnectionStatus } from "../realtime/connection.js";
import type { WorkMode } from "../protocol/types.js";
import type { HostToolDefinition } from "../tools/registry.js";
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
    /** Work mode of new sessions. Default "edit". */
    workMode?: WorkMode;
    /** Host tools offered to the model with every message (see registerTool). */
    tools?: HostToolDefinition[];
    /** URL of sandbox.html for the script tool. Default: next to rtc-agent.js. */
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
    /** Reconnect delays of the WebSocket. Defaults 500 ms and 20 s. */
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
    text: {
        messageId: string;
        sessionId: string;
        text: string;
    };
    /** Local state was dropped and reloaded from the server. */
    reset: {
        reason: string;
        epoch: string;
        offset: number;
    };
    /** The token could not be renewed: the host must log the user in again. */
    relogin: {
        reason: string;
    };
    /** Open questions for the person (confirmations, askUser) changed. */
    prompts: Prompt[];
    /** This tab became (or stopped being) the one that executes tools. */
    leader: boolean;
    /** The lists of a session were loaded. */
    hydrated: string;
    /** Something failed in the background (logged; the agent keeps going). */
    error: unknown;
}
export interface SendOptions {
    /** Continue this session; omitted = start a new one. */
    sessionId?: string;
    /** Work mode (for a new session, or to change an existing one's). */
    workMode?: WorkMode;
}
export type { AskAnswer, Prompt, PromptAnswer };
