import { Emitter } from "../util/emitter.js";
export interface Leadership {
    readonly isLeader: boolean;
    readonly events: Emitter<{
        change: boolean;
    }>;
    start(): void;
    stop(): void;
}
export declare class WebLockLeadership implements Leadership {
    private readonly locks;
    private readonly name;
    readonly events: Emitter<{
        change: boolean;
    }>;
    private leader;
    private release;
    private abort;
    constructor(locks: LockManager, name: string);
    get isLeader(): boolean;
    start(): void;
    stop(): void;
    private set;
}
export interface LeaseOptions {
    ttlMs?: number;
    renewMs?: number;
}
export declare class LeaseLeadership implements Leadership {
    private readonly db;
    private readonly name;
    private readonly holder;
    readonly events: Emitter<{
        change: boolean;
    }>;
    private leader;
    private timer;
    private running;
    private readonly ttlMs;
    private readonly renewMs;
    /** Our lease's expiry as last written: a throttled tab stops counting as leader after it. */
    private expires;
    constructor(db: IDBDatabase, name: string, holder: string, opts?: LeaseOptions);
    get isLeader(): boolean;
    start(): void;
    private readonly onHide;
    stop(): void;
    private tick;
    private set;
}
export interface ConnectedOptions {
    /** How long a tab may be offline before it gives the role up. Default 5 s. */
    graceMs?: number;
    /** True while a tool body of this tab runs: the role is kept until it ends. */
    busy?: () => Promise<boolean>;
}
/**
 * Leadership for a tab that is connected: it competes for the inner leadership
 * (Web Locks or the lease) only once connected, and gives it up after `graceMs`
 * offline, so a tab that cannot reach the server never keeps a connected tab of
 * the same user and device from running and asking. It waits for a running tool
 * body to end first: the next leader would otherwise find the call started and
 * report it as interrupted although it is still running. Outcomes left in the
 * outbox are sent by whichever tab leads next (the outbox is shared).
 */
export declare class ConnectedLeadership implements Leadership {
    private readonly inner;
    private readonly opts;
    readonly events: Emitter<{
        change: boolean;
    }>;
    private wanted;
    private online;
    private timer;
    private readonly graceMs;
    constructor(inner: Leadership, opts?: ConnectedOptions);
    get isLeader(): boolean;
    start(): void;
    stop(): void;
    /** The tab's connection came up (true) or went down (false). */
    setOnline(online: boolean): void;
    private sync;
    private release;
    private clearTimer;
}
/** Web Locks when the browser has them, otherwise the IndexedDB lease. */
export declare function createLeadership(name: string, db: IDBDatabase, tabId: string, locks: LockManager | null | undefined): Leadership;
