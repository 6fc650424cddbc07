import type { Session, Update } from "../protocol/types.js";
import type { Position } from "../state/db.js";
import { Emitter } from "../util/emitter.js";
/** Calls a v1 method; throws RpcError. */
export type Call = <T>(method: string, params: object) => Promise<T>;
/** Where updates go: the entity store (or a fake in unit tests). */
export interface TopicTarget {
    position(): Position | null;
    apply(updates: Update[]): Promise<void>;
    reset(epoch: string, offset: number, sessions: Session[]): Promise<void>;
}
export interface TopicSyncEvents {
    /** A reset happened: why, and the new position. */
    reset: {
        reason: string;
        epoch: string;
        offset: number;
    };
    /** A refill with v1.update.list applied `count` updates. */
    refill: {
        from: number;
        to: number;
        count: number;
    };
    /** A dropped duplicate. */
    duplicate: number;
    error: unknown;
}
export interface TopicSyncOptions {
    /** Page size of v1.update.list and v1.session.list. Default 200. */
    pageLimit?: number;
    /** Base delay of retries after a failed refill. Default 1000 ms. */
    retryBaseMs?: number;
}
export declare class TopicSync {
    private readonly target;
    private readonly call;
    readonly events: Emitter<TopicSyncEvents>;
    private readonly queue;
    private readonly pageLimit;
    private readonly retryBaseMs;
    /** A task failed: some updates may have been skipped; refill to the top. */
    private dirty;
    private retries;
    private retryTimer;
    private closed;
    constructor(target: TopicTarget, call: Call, options?: TopicSyncOptions);
    /** A Topic publication (rules 1-3). Resolves when it has been handled. */
    publication(u: Update): Promise<void>;
    /**
     * The server subscribed this connection (rule 4). `recovered` publications, if
     * any, follow as ordinary publications.
     */
    subscribed(recovered: boolean, sp: Position | undefined): Promise<void>;
    /** Catches up with the server's top (e.g. when asked to by the host). */
    resync(): Promise<void>;
    /** Runs a task between Topic updates (e.g. loading a session's lists). */
    exclusive<T>(task: () => Promise<T>): Promise<T>;
    close(): void;
    private onPublication;
    /** Rule 3: fetch updates after the stored offset until `upTo` (or the top). */
    private refill;
    /**
     * Rule 5: drop local state, reload it with the list methods (each returns the
     * offset it was read at), store the epoch and that offset, continue.
     */
    private reset;
    /** Runs a task on the queue; a failure marks the state dirty and schedules a refill. */
    private guarded;
    private scheduleRetry;
}
