// Persistent storage: a browser may evict an origin's IndexedDB under storage
// pressure unless the origin holds the "persistent" mode. Asked for once per
// origin: a browser that shows a prompt (Firefox) would otherwise ask on every
// load, and one that decides by itself (Chromium) answers the same each time.

const ASKED_KEY = "rtc-agent:storage-persist-asked";

/** True when storage is persistent (now or after asking), false when not, null where the API is missing. */
export async function requestPersistence(storage: StorageManager | undefined = globalThis.navigator?.storage): Promise<boolean | null> {
  if (typeof storage?.persisted !== "function" || typeof storage.persist !== "function") return null;
  try {
    if (await storage.persisted()) return true;
    if (askedBefore()) return false;
    remember();
    return await storage.persist();
  } catch {
    return null; // e.g. a sandboxed frame without storage access
  }
}

function askedBefore(): boolean {
  try {
    return localStorage.getItem(ASKED_KEY) !== null;
  } catch {
    return false;
  }
}

function remember(): void {
  try {
    localStorage.setItem(ASKED_KEY, new Date().toISOString());
  } catch {
    // no localStorage: asking again next time is the lesser harm
  }
}
