// The SDK's own IndexedDB database per (user, device): the Topic position and the
// entities it covers (so a reloaded page continues where it left off), and the
// executor's journal, outbox and lease. All tabs of the origin share it; every
// write that must not race is a read-check-write inside one transaction, which
// IndexedDB serialises across tabs.

export const S_META = "meta"; // key "position" → Position
export const S_SESSIONS = "sessions";
export const S_TURNS = "turns";
export const S_MESSAGES = "messages";
export const S_RTCS = "rtcs";
export const S_HYDRATED = "hydrated"; // session id → offset at which its lists were loaded
export const S_JOURNAL = "journal";
export const S_OUTBOX = "outbox";
export const S_LEASE = "lease";
export const ENTITY_STORES = [S_SESSIONS, S_TURNS, S_MESSAGES, S_RTCS] as const;
export type EntityStoreName = (typeof ENTITY_STORES)[number];

const VERSION = 1;

/** Stored Topic position: every update up to `offset` of `epoch` is applied. */
export interface Position {
  epoch: string;
  offset: number;
}

export function stateDbName(userId: string, deviceId: string): string {
  return `rtc-agent-state/${encodeURIComponent(userId)}/${encodeURIComponent(deviceId)}`;
}

export function req<T>(r: IDBRequest<T>): Promise<T> {
  return new Promise((resolve, reject) => {
    r.onsuccess = () => resolve(r.result);
    r.onerror = () => reject(r.error);
  });
}

export function openStateDb(name: string, factory: IDBFactory = indexedDB): Promise<IDBDatabase> {
  return new Promise((resolve, reject) => {
    const r = factory.open(name, VERSION);
    r.onupgradeneeded = () => {
      const db = r.result;
      db.createObjectStore(S_META);
      db.createObjectStore(S_SESSIONS, { keyPath: "id" });
      for (const s of [S_TURNS, S_MESSAGES, S_RTCS]) {
        db.createObjectStore(s, { keyPath: "id" }).createIndex("session_id", "session_id", { unique: false });
      }
      db.createObjectStore(S_HYDRATED);
      db.createObjectStore(S_JOURNAL, { keyPath: "rtc_id" });
      db.createObjectStore(S_OUTBOX, { keyPath: "rtc_id" });
      db.createObjectStore(S_LEASE);
    };
    r.onsuccess = () => {
      const db = r.result;
      // A newer SDK in another tab wants to upgrade: let it (this tab's writes then fail).
      db.onversionchange = () => db.close();
      resolve(db);
    };
    r.onerror = () => reject(r.error);
    r.onblocked = () => undefined;
  });
}

/**
 * Runs `fn` in one transaction and resolves with its result after the commit.
 * `fn` must only await IndexedDB requests of `tx` (any other await lets the
 * transaction auto-commit). Throwing aborts it: nothing of it persists.
 */
export async function tx<T>(db: IDBDatabase, stores: string[], mode: IDBTransactionMode, fn: (t: IDBTransaction) => Promise<T>): Promise<T> {
  const t = db.transaction(stores, mode);
  const done = new Promise<void>((resolve, reject) => {
    t.oncomplete = () => resolve();
    t.onabort = () => reject(t.error ?? new Error("transaction aborted"));
    t.onerror = () => undefined;
  });
  let result: T;
  try {
    result = await fn(t);
  } catch (err) {
    done.catch(() => undefined);
    try {
      t.abort();
    } catch {
      // already finished
    }
    throw err;
  }
  await done;
  return result;
}

export function deleteDb(name: string, factory: IDBFactory = indexedDB): Promise<void> {
  return new Promise((resolve, reject) => {
    const r = factory.deleteDatabase(name);
    r.onsuccess = () => resolve();
    r.onerror = () => reject(r.error);
    r.onblocked = () => resolve();
  });
}
