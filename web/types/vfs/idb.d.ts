import { VfsError } from "./errors.js";
/** Object store names and the record shape of each (schema version 1). */
export declare const STORE_NODES = "nodes";
export declare const STORE_CONTENTS = "contents";
export declare const STORE_META = "meta";
export declare const INDEX_PARENT = "parent";
export declare const META_USAGE = "usage";
export declare const SCHEMA_VERSION = 1;
/** One row of the `nodes` store: everything about an entry except file content. */
export interface NodeRecord {
    path: string;
    /** Parent directory path; `""` for the root so the root is nobody's child. */
    parent: string;
    type: "file" | "dir";
    /** UTF-8 byte length of the content; 0 for directories. */
    size: number;
    ctime: number;
    mtime: number;
    /** Increases by one on every write of this path; lets an editor detect changes. */
    version: number;
}
export declare function request<T>(req: IDBRequest<T>): Promise<T>;
/** Opens (and creates or upgrades) the VFS database. */
export declare function openDatabase(factory: IDBFactory, name: string): Promise<IDBDatabase>;
/**
 * Runs `fn` in one transaction and resolves after the commit. If `fn` throws,
 * the transaction is aborted so none of its writes persist.
 */
export declare function inTransaction<T>(db: IDBDatabase, stores: string[], mode: IDBTransactionMode, fn: (tx: IDBTransaction) => Promise<T>): Promise<T>;
/** Maps DOM/IndexedDB failures to VfsError; VfsErrors pass through unchanged. */
export declare function toVfsError(err: unknown, what: string): VfsError;
/**
 * Key range of every path strictly below directory `dir`. Since all such paths
 * start with `dir + "/"`, the exclusive upper bound is that prefix with its final
 * `/` replaced by the next code unit, `0`.
 */
export declare function descendantsRange(dir: string): IDBKeyRange;
