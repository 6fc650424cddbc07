// Minimal promise glue over raw IndexedDB. We keep it local instead of pulling in a
// wrapper library: the VFS needs four operations and full control over when a
// transaction commits or aborts (a thrown VfsError must roll back partial writes).

import { VfsError } from "./errors.js";
import { gramFilter } from "./grams.js";

/**
 * Object store names and the record shape of each. Version 1: nodes, contents,
 * meta. Version 2 adds `grams`: per file, the trigram filter of its content (see
 * grams.ts), in a store of its own so that listing nodes does not read them;
 * opening a version 1 database fills it for every file.
 */
export const STORE_NODES = "nodes";
export const STORE_CONTENTS = "contents";
export const STORE_GRAMS = "grams";
export const STORE_META = "meta";
export const INDEX_PARENT = "parent";
export const META_USAGE = "usage";
export const SCHEMA_VERSION = 2;

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

/** One row of the `grams` store, keyed by the file's path. A file without one may contain anything. */
export interface GramsRecord {
  path: string;
  filter: string;
}

export function request<T>(req: IDBRequest<T>): Promise<T> {
  return new Promise((resolve, reject) => {
    req.onsuccess = () => resolve(req.result);
    req.onerror = () => reject(req.error);
  });
}

/** Opens (and creates or upgrades) the VFS database. */
export function openDatabase(factory: IDBFactory, name: string): Promise<IDBDatabase> {
  return new Promise((resolve, reject) => {
    const req = factory.open(name, SCHEMA_VERSION);
    req.onupgradeneeded = (ev) => {
      const db = req.result;
      if (ev.oldVersion < 1) {
        const nodes = db.createObjectStore(STORE_NODES, { keyPath: "path" });
        nodes.createIndex(INDEX_PARENT, "parent", { unique: false });
        db.createObjectStore(STORE_CONTENTS);
        const meta = db.createObjectStore(STORE_META);
        const now = Date.now();
        const root: NodeRecord = { path: "/", parent: "", type: "dir", size: 0, ctime: now, mtime: now, version: 1 };
        nodes.put(root);
        meta.put(0, META_USAGE);
      }
      if (ev.oldVersion < 2) {
        db.createObjectStore(STORE_GRAMS, { keyPath: "path" });
        if (ev.oldVersion >= 1) addGramFilters(req.transaction as IDBTransaction);
      }
    };
    req.onsuccess = () => resolve(req.result);
    req.onerror = () => reject(toVfsError(req.error, "open database"));
    // Another tab holds an older version open: we wait; that tab closes on
    // `versionchange` (see VirtualFS), so this resolves once it has.
    req.onblocked = () => undefined;
  });
}

/**
 * Schema 1 → 2, inside the upgrade transaction (so it happens wholly or not at
 * all): the trigram filter of every file's content. Nodes and contents stay as
 * they were (versions and mtimes too, so cached copies stay valid).
 */
function addGramFilters(tx: IDBTransaction): void {
  const nodes = tx.objectStore(STORE_NODES);
  const contents = tx.objectStore(STORE_CONTENTS);
  const grams = tx.objectStore(STORE_GRAMS);
  const cursor = nodes.openCursor();
  cursor.onsuccess = () => {
    const c = cursor.result;
    if (!c) return;
    const node = c.value as NodeRecord;
    if (node.type === "file") {
      const get = contents.get(node.path);
      get.onsuccess = () => {
        const content = typeof get.result === "string" ? get.result : "";
        grams.put({ path: node.path, filter: gramFilter(content) } satisfies GramsRecord);
      };
    }
    c.continue();
  };
}

/**
 * Runs `fn` in one transaction and resolves after the commit. If `fn` throws,
 * the transaction is aborted so none of its writes persist.
 */
export async function inTransaction<T>(
  db: IDBDatabase,
  stores: string[],
  mode: IDBTransactionMode,
  fn: (tx: IDBTransaction) => Promise<T>,
): Promise<T> {
  let tx: IDBTransaction;
  try {
    tx = db.transaction(stores, mode);
  } catch (err) {
    throw toVfsError(err, "start transaction");
  }
  const done = new Promise<void>((resolve, reject) => {
    tx.oncomplete = () => resolve();
    tx.onabort = () => reject(tx.error);
  });
  let result: T;
  try {
    result = await fn(tx);
  } catch (err) {
    done.catch(() => undefined);
    try {
      tx.abort();
    } catch {
      // Already finished or aborted by the failing request: nothing to undo.
    }
    throw toVfsError(err, "transaction");
  }
  try {
    await done;
  } catch (err) {
    throw toVfsError(err, "commit");
  }
  return result;
}

/** Maps DOM/IndexedDB failures to VfsError; VfsErrors pass through unchanged. */
export function toVfsError(err: unknown, what: string): VfsError {
  if (err instanceof VfsError) return err;
  const name = err instanceof DOMException ? err.name : "";
  const msg = err instanceof Error ? err.message : String(err);
  if (name === "QuotaExceededError") {
    return new VfsError("ENOSPC", `browser storage quota exceeded (${msg})`);
  }
  return new VfsError("EIO", `IndexedDB ${what} failed: ${name ? name + ": " : ""}${msg}`);
}

/**
 * Key range of every path strictly below directory `dir`. Since all such paths
 * start with `dir + "/"`, the exclusive upper bound is that prefix with its final
 * `/` replaced by the next code unit, `0`.
 */
export function descendantsRange(dir: string): IDBKeyRange {
  const prefix = dir === "/" ? "/" : dir + "/";
  const upper = prefix.slice(0, -1) + "0";
  // The root "/" is itself the prefix, so exclude the lower bound there.
  return IDBKeyRange.bound(prefix, upper, dir === "/", true);
}
