export declare const S_META = "meta";
export declare const S_SESSIONS = "sessions";
export declare const S_TURNS = "turns";
export declare const S_MESSAGES = "messages";
export declare const S_RTCS = "rtcs";
export declare const S_HYDRATED = "hydrated";
export declare const S_JOURNAL = "journal";
export declare const S_OUTBOX = "outbox";
export declare const S_LEASE = "lease";
export declare const ENTITY_STORES: readonly ["sessions", "turns", "messages", "rtcs"];
export type EntityStoreName = (typeof ENTITY_STORES)[number];
/** Stored Topic position: every update up to `offset` of `epoch` is applied. */
export interface Position {
    epoch: string;
    offset: number;
}
export declare function stateDbName(userId: string, deviceId: string): string;
export declare function req<T>(r: IDBRequest<T>): Promise<T>;
export declare function openStateDb(name: string, factory?: IDBFactory): Promise<IDBDatabase>;
/**
 * Runs `fn` in one transaction and resolves with its result after the commit.
 * `fn` must only await IndexedDB requests of `tx` (any other await lets the
 * transaction auto-commit). Throwing aborts it: nothing of it persists.
 */
export declare function tx<T>(db: IDBDatabase, stores: string[], mode: IDBTransactionMode, fn: (t: IDBTransaction) => Promise<T>): Promise<T>;
export declare function deleteDb(name: string, factory?: IDBFactory): Promise<void>;
