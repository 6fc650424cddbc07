// Exactly one tab executes RTCs. With the Web Locks API the executing tab holds
// an exclusive lock for its lifetime; the browser hands it to the next tab when
// it closes. Without Web Locks a lease record in IndexedDB (holder, expiry), taken
// and renewed by compare-and-set in one transaction, elects one tab; a tab whose
// renewal fails stops executing. Never "every tab". (The journal's claim is the
// last line of defence: even two leaders could not start one call twice.)
// ConnectedLeadership lets a tab compete only while it is connected.

import { S_LEASE, req, tx } from "../state/db.js";
import { Emitter } from "../util/emitter.js";

export interface Leadership {
  readonly isLeader: boolean;
  readonly events: Emitter<{ change: boolean }>;
  start(): void;
  stop(): void;
}

export class WebLockLeadership implements Leadership {
  readonly events = new Emitter<{ change: boolean }>();
  private leader = false;
  private release: (() => void) | null = null;
  private abort: AbortController | null = null;

  constructor(
    private readonly locks: LockManager,
    private readonly name: string,
  ) {}

  get isLeader(): boolean {
    return this.leader;
  }

  start(): void {
    if (this.abort) return;
    const abort = (this.abort = new AbortController());
    this.locks
      .request(this.name, { mode: "exclusive", signal: abort.signal }, () => {
        if (abort.signal.aborted) return undefined;
        this.set(true);
        // Held until stop(): the promise the lock waits on.
        return new Promise<void>((resolve) => (this.release = resolve));
      })
      .catch(() => undefined); // aborted while waiting
  }

  stop(): void {
    this.abort?.abort();
    this.abort = null;
    this.release?.();
    this.release = null;
    this.set(false);
  }

  private set(v: boolean): void {
    if (v === this.leader) return;
    this.leader = v;
    this.events.emit("change", v);
  }
}

interface LeaseRecord {
  holder: string;
  expires: number;
}

export interface LeaseOptions {
  ttlMs?: number;
  renewMs?: number;
}

export class LeaseLeadership implements Leadership {
  readonly events = new Emitter<{ change: boolean }>();
  private leader = false;
  private timer: ReturnType<typeof setTimeout> | null = null;
  private running = false;
  private readonly ttlMs: number;
  private readonly renewMs: number;
  /** Our lease's expiry as last written: a throttled tab stops counting as leader after it. */
  private expires = 0;

  constructor(
    private readonly db: IDBDatabase,
    private readonly name: string,
    private readonly holder: string,
    opts: LeaseOptions = {},
  ) {
    this.ttlMs = opts.ttlMs ?? 6000;
    this.renewMs = opts.renewMs ?? 1500;
  }

  get isLeader(): boolean {
    return this.leader && Date.now() < this.expires;
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    // A closing tab gives its lease up at once, so another tab need not wait for
    // the expiry. (Web Locks are released by the browser itself.)
    globalThis.addEventListener?.("pagehide", this.onHide);
    void this.tick();
  }

  private readonly onHide = (): void => {
    this.stop();
    // Back from the back/forward cache: compete again.
    globalThis.addEventListener?.("pageshow", () => this.start(), { once: true });
  };

  stop(): void {
    this.running = false;
    globalThis.removeEventListener?.("pagehide", this.onHide);
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    if (this.leader) {
      // Give the lease up so another tab takes over at once, not after the expiry.
      void tx(this.db, [S_LEASE], "readwrite", async (t) => {
        const cur = (await req(t.objectStore(S_LEASE).get(this.name))) as LeaseRecord | undefined;
        if (cur?.holder === this.holder) t.objectStore(S_LEASE).delete(this.name);
      }).catch(() => undefined);
    }
    this.set(false);
  }

  private async tick(): Promise<void> {
    let won = false;
    try {
      won = await tx(this.db, [S_LEASE], "readwrite", async (t) => {
        const store = t.objectStore(S_LEASE);
        const cur = (await req(store.get(this.name))) as LeaseRecord | undefined;
        const now = Date.now();
        if (cur && cur.holder !== this.holder && cur.expires > now) return false;
        store.put({ holder: this.holder, expires: now + this.ttlMs } satisfies LeaseRecord, this.name);
        this.expires = now + this.ttlMs;
        return true;
      });
    } catch {
      won = false;
    }
    if (!this.running) return;
    this.set(won);
    this.timer = setTimeout(() => void this.tick(), this.renewMs);
  }

  private set(v: boolean): void {
    if (v === this.leader) return;
    this.leader = v;
    this.events.emit("change", v);
  }
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
export class ConnectedLeadership implements Leadership {
  readonly events = new Emitter<{ change: boolean }>();
  private wanted = false;
  private online = false;
  private timer: ReturnType<typeof setTimeout> | null = null;
  private readonly graceMs: number;

  constructor(
    private readonly inner: Leadership,
    private readonly opts: ConnectedOptions = {},
  ) {
    this.graceMs = opts.graceMs ?? 5000;
    inner.events.on("change", (v) => this.events.emit("change", v));
  }

  get isLeader(): boolean {
    return this.inner.isLeader;
  }

  start(): void {
    this.wanted = true;
    this.sync();
  }

  stop(): void {
    this.wanted = false;
    this.clearTimer();
    this.inner.stop();
  }

  /** The tab's connection came up (true) or went down (false). */
  setOnline(online: boolean): void {
    this.online = online;
    this.sync();
  }

  private sync(): void {
    if (!this.wanted) return;
    if (this.online) {
      this.clearTimer();
      this.inner.start();
    } else if (!this.timer) this.timer = setTimeout(() => void this.release(), this.graceMs);
  }

  private async release(): Promise<void> {
    let busy = false;
    try {
      busy = this.inner.isLeader && !!(await this.opts.busy?.());
    } catch {
      busy = true; // the journal could not be read: keep the role, look again
    }
    if (!this.timer || this.online || !this.wanted) return;
    if (busy) {
      this.timer = setTimeout(() => void this.release(), 1000);
      return;
    }
    this.timer = null;
    this.inner.stop();
  }

  private clearTimer(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }
}

/** Web Locks when the browser has them, otherwise the IndexedDB lease. */
export function createLeadership(name: string, db: IDBDatabase, tabId: string, locks: LockManager | null | undefined): Leadership {
  return locks ? new WebLockLeadership(locks, name) : new LeaseLeadership(db, name, tabId);
}
