import type { Delta, Update } from "../protocol/types.js";
import type { Position } from "../state/db.js";
import { Emitter } from "../util/emitter.js";
export type ConnectionState = "connecting" | "connected" | "disconnected";
/**
 * Why the last connection attempt failed, in terms a person can act on:
 * - `unreachable`: the server could not be reached (network, server down);
 * - `token`: `getToken` (the host's token endpoint) failed;
 * - `token-rejected`: the server refused the token (e.g. its secret changed);
 * - `origin`: the server does not accept this page's origin (no retry: the page
 *   cannot change its origin);
 * - `refused`: the server ended the connection for another reason;
 * - `relogin`: the user must log in again.
 */
export type ConnectionProblemKind = "unreachable" | "token" | "token-rejected" | "origin" | "refused" | "relogin";
export interface ConnectionProblem {
    kind: ConnectionProblemKind;
    message: string;
}
export interface ConnectionStatus {
    state: ConnectionState;
    /** When the next attempt starts (ms since the epoch), while offline and waiting to retry. */
    retryAt?: number;
    /** Why the last attempt failed; cleared once connected. */
    problem?: ConnectionProblem;
}
/**
 * Thrown (or returned as null/"" ) by a host's `getToken` when the user must log in
 * again: the SDK stops reconnecting and emits `relogin`.
 */
export declare class ReloginRequired extends Error {
    readonly name = "ReloginRequired";
}
export interface ConnectionOptions {
    /** ws(s)://host/connection/websocket */
    url: string;
    deviceId: string;
    getToken: () => Promise<string | null | undefined>;
    minReconnectDelayMs?: number;
    maxReconnectDelayMs?: number;
    /** Timeout of calls and connection attempts. Default 10 s. */
    timeoutMs?: number;
}
export interface ConnectionEvents {
    state: ConnectionState;
    status: ConnectionStatus;
    subscribed: {
        channel: string;
        recovered: boolean;
        position: Position | undefined;
    };
    topic: Update;
    delta: Delta;
    relogin: {
        reason: string;
    };
}
/**
 * The client's connection. After a failed attempt it waits for a delay it chose
 * itself (exponential backoff with jitter) instead of Centrifuge's internal one,
 * so the UI can count down to the next attempt ("Offline, retrying in 4 s") and
 * name what went wrong.
 */
export declare class Connection {
    private readonly opts;
    readonly events: Emitter<ConnectionEvents>;
    private readonly client;
    private stateValue;
    private failures;
    private retryTimer;
    private retryAt;
    private problem;
    private closed;
    private readonly minDelay;
    private readonly maxDelay;
    constructor(opts: ConnectionOptions);
    get state(): ConnectionState;
    get status(): ConnectionStatus;
    connect(): void;
    /** Starts the next attempt now instead of at `status.retryAt`. */
    retryNow(): void;
    close(): void;
    /** Calls a v1 method over the socket (waits for a connection up to the timeout). */
    call<T>(method: string, params: object): Promise<T>;
    /** Resolves once connected (or rejects after `timeoutMs`). */
    ready(timeoutMs?: number): Promise<void>;
    private token;
    /**
     * An attempt failed: stop Centrifuge's own retry and wait for a delay of ours,
     * known in advance, then try again (with a new token when `freshToken`).
     */
    private offline;
    private attempt;
    private setState;
    private emitStatus;
}
/** ws(s)://host/connection/websocket for an http(s) server URL. */
export declare function websocketUrl(serverUrl: string): string;
