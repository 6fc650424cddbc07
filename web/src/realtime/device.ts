// The device id names this browser profile to the server: a session belongs to
// the device that created it, and only that device executes its RTCs. It is made
// once (crypto.randomUUID) and kept: in localStorage when the page may use it,
// otherwise in a small IndexedDB database.

import { req } from "../state/db.js";

const KEY = "rtc-agent:device-id";
const DB = "rtc-agent-device";

export async function deviceId(factory: IDBFactory = indexedDB): Promise<string> {
  // Two tabs opened together on the first visit must not make two ids.
  const locks = typeof navigator !== "undefined" ? navigator.locks : undefined;
  if (locks) return locks.request("rtc-agent:device-id", () => readOrCreate(factory));
  return readOrCreate(factory);
}

async function readOrCreate(factory: IDBFactory): Promise<string> {
  try {
    const cur = localStorage.getItem(KEY);
    if (cur) return cur;
    const id = crypto.randomUUID();
    localStorage.setItem(KEY, id);
    return id;
  } catch {
    return deviceIdFromIdb(factory);
  }
}

async function deviceIdFromIdb(factory: IDBFactory): Promise<string> {
  const db = await new Promise<IDBDatabase>((resolve, reject) => {
    const r = factory.open(DB, 1);
    r.onupgradeneeded = () => r.result.createObjectStore("kv");
    r.onsuccess = () => resolve(r.result);
    r.onerror = () => reject(r.error);
  });
  try {
    const t = db.transaction("kv", "readwrite");
    const kv = t.objectStore("kv");
    const cur = (await req(kv.get(KEY))) as string | undefined;
    if (cur) return cur;
    const id = crypto.randomUUID();
    kv.put(id, KEY);
    await new Promise<void>((resolve, reject) => {
      t.oncomplete = () => resolve();
      t.onabort = () => reject(t.error);
    });
    return id;
  } finally {
    db.close();
  }
}
