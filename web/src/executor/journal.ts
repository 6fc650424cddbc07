// The executor's journal and outbox in IndexedDB (ARCHITECTURE invariant 6).
//
// journal: what this device did with an RTC. "executing" is written, in a
//   transaction that first checks nobody claimed the call, before any side effect;
//   so a call is never started twice, whatever happens to tabs or the page.
// outbox: a result (or a refusal) waiting for the server's acknowledgement. It is
//   written in the same transaction that ends the journal entry, so a result is
//   never lost between "tool finished" and "server knows".
//
// When a write fails (the storage quota is used up, IndexedDB broke), the entry
// is kept in memory instead and read back from there (`unsaved`): a result is
// still submitted, and a call claimed in memory is still never started twice by
// this page. What memory cannot give is the guarantee across a reload or another
// tab; the server's `executing` status, reported before any tool with effects
// runs, is what then keeps the call from running again (executor.ts). Each
// failed write is reported once as an `unsaved` event, for the person to free
// space.

import { S_JOURNAL, S_OUTBOX, req, tx } from "../state/db.js";
import { StorageError } from "../state/storage-error.js";
import { Emitter } from "../util/emitter.js";
import type { RtcExecution } from "../protocol/types.js";

export type JournalPhase = "prompting" | "executing" | "finished" | "acknowledged";

export interface JournalEntry {
  rtc_id: string;
  session_id: string;
  tool_name: string;
  phase: JournalPhase;
  /** The tab that wrote the phase. */
  tab: string;
  started_at: number;
  updated_at: number;
}

/** When this page ran a call and how it went, sent with its result (the server traces it). */
export type Execution = RtcExecution;

export type OutboxEntry =
  | { rtc_id: string; client_id: string; kind: "result"; ok: true; output: unknown; execution?: Execution; created_at: number }
  | { rtc_id: string; client_id: string; kind: "result"; ok: false; error: string; execution?: Execution; created_at: number }
  | { rtc_id: string; client_id: string; kind: "reject"; reason: string; denial?: string; created_at: number };

/** What an outcome looks like before it gets its client id. */
export type Outcome =
  | { kind: "result"; ok: true; output: unknown; execution?: Execution }
  | { kind: "result"; ok: false; error: string; execution?: Execution }
  | { kind: "reject"; reason: string; denial?: string };

export const INTERRUPTED = "interrupted: the page was reloaded while the tool ran; it was not run again";

export interface RtcRef {
  id: string;
  session_id: string;
  tool_name: string;
}

/** What memory holds of a call whose last write failed; newer than IndexedDB. */
interface Unsaved {
  journal: JournalEntry;
  /** The outcome waiting for the server; null once acknowledged (gone from the outbox). */
  outbox: OutboxEntry | null;
}

export class Journal {
  readonly events = new Emitter<{ unsaved: StorageError }>();
  private readonly unsaved = new Map<string, Unsaved>();

  constructor(private readonly db: IDBDatabase) {}

  async get(rtcId: string): Promise<{ journal?: JournalEntry; outbox?: OutboxEntry }> {
    const mem = this.unsaved.get(rtcId);
    if (mem) return { journal: mem.journal, ...(mem.outbox ? { outbox: mem.outbox } : {}) };
    return tx(this.db, [S_JOURNAL, S_OUTBOX], "readonly", async (t) => ({
      journal: (await req(t.objectStore(S_JOURNAL).get(rtcId))) as JournalEntry | undefined,
      outbox: (await req(t.objectStore(S_OUTBOX).get(rtcId))) as OutboxEntry | undefined,
    }));
  }

  /** Records that the user is being asked about a call (no side effect yet). */
  async prompting(rtc: RtcRef, tab: string): Promise<boolean> {
    return this.claim(rtc, tab, "prompting", (cur) => !cur || cur.phase === "prompting");
  }

  /**
   * Claims the call for execution: true only if no tab started or finished it.
   * Must succeed before the tool runs.
   */
  async executing(rtc: RtcRef, tab: string): Promise<boolean> {
    return this.claim(rtc, tab, "executing", (cur) => !cur || cur.phase === "prompting");
  }

  /**
   * Ends a call with an outcome: journal "finished" and the outbox entry in one
   * transaction. Refused (false) when the call already has an outcome.
   */
  async finish(rtc: RtcRef, tab: string, outcome: Outcome): Promise<OutboxEntry | null> {
    const make = (cur: JournalEntry | undefined): { journal: JournalEntry; outbox: OutboxEntry } | null => {
      if (cur && (cur.phase === "finished" || cur.phase === "acknowledged")) return null;
      const now = Date.now();
      return {
        journal: { rtc_id: rtc.id, session_id: rtc.session_id, tool_name: rtc.tool_name, phase: "finished", tab, started_at: cur?.started_at ?? now, updated_at: now },
        outbox: { ...outcome, rtc_id: rtc.id, client_id: crypto.randomUUID(), created_at: now } as OutboxEntry,
      };
    };
    const mem = this.unsaved.get(rtc.id);
    let seen: { made: { journal: JournalEntry; outbox: OutboxEntry } | null } | null = null;
    return this.write(
      rtc.id,
      async (t) => {
        const made = make(await this.current(t, rtc.id));
        seen = { made };
        if (!made) return { value: null, wrote: false };
        t.objectStore(S_JOURNAL).put(made.journal);
        t.objectStore(S_OUTBOX).put(made.outbox);
        return { value: made.outbox, wrote: true };
      },
      // The transaction failed: keep the outcome it was writing (same client id).
      () => {
        const made = seen ? seen.made : make(mem?.journal);
        if (!made) return null;
        this.unsaved.set(rtc.id, { journal: made.journal, outbox: made.outbox });
        return made.outbox;
      },
    );
  }

  /** Marks a call as done without a result to send (it ended on the server first). */
  async close(rtc: RtcRef, tab: string): Promise<void> {
    const entry = (cur: JournalEntry | undefined): JournalEntry => {
      const now = Date.now();
      return { rtc_id: rtc.id, session_id: rtc.session_id, tool_name: rtc.tool_name, phase: "acknowledged", tab, started_at: cur?.started_at ?? now, updated_at: now };
    };
    await this.write(
      rtc.id,
      async (t) => {
        t.objectStore(S_JOURNAL).put(entry(await this.current(t, rtc.id)));
        t.objectStore(S_OUTBOX).delete(rtc.id);
        return { value: undefined, wrote: true };
      },
      () => void this.unsaved.set(rtc.id, { journal: entry(this.unsaved.get(rtc.id)?.journal), outbox: null }),
    );
  }

  /** The server acknowledged the outcome: drop it from the outbox. */
  async acknowledge(rtcId: string): Promise<void> {
    const mem = this.unsaved.get(rtcId);
    await this.write(
      rtcId,
      async (t) => {
        const cur = await this.current(t, rtcId);
        if (cur) t.objectStore(S_JOURNAL).put({ ...cur, phase: "acknowledged", updated_at: Date.now() });
        t.objectStore(S_OUTBOX).delete(rtcId);
        return { value: undefined, wrote: true };
      },
      () => {
        if (mem) this.unsaved.set(rtcId, { journal: { ...mem.journal, phase: "acknowledged", updated_at: Date.now() }, outbox: null });
        // Saved before the quota ran out: the outbox in IndexedDB still holds it; memory hides it.
        else this.unsaved.set(rtcId, { journal: { rtc_id: rtcId, session_id: "", tool_name: "", phase: "acknowledged", tab: "", started_at: Date.now(), updated_at: Date.now() }, outbox: null });
      },
    );
  }

  /** Replaces an outbox entry's outcome (e.g. a result too large to submit), keeping its client id. */
  async replace(entry: OutboxEntry): Promise<void> {
    const mem = this.unsaved.get(entry.rtc_id);
    await this.write(
      entry.rtc_id,
      async (t) => {
        if (mem) t.objectStore(S_JOURNAL).put(mem.journal);
        t.objectStore(S_OUTBOX).put(entry);
        return { value: undefined, wrote: true };
      },
      () => {
        const now = Date.now();
        this.unsaved.set(entry.rtc_id, { journal: mem?.journal ?? { rtc_id: entry.rtc_id, session_id: "", tool_name: "", phase: "finished", tab: "", started_at: now, updated_at: now }, outbox: entry });
      },
    );
  }

  /** The outcomes waiting for the server: IndexedDB's, with memory's on top. */
  async outbox(): Promise<OutboxEntry[]> {
    let stored: OutboxEntry[] = [];
    try {
      stored = await tx(this.db, [S_OUTBOX], "readonly", async (t) => (await req(t.objectStore(S_OUTBOX).getAll())) as OutboxEntry[]);
    } catch (err) {
      if (this.unsaved.size === 0) throw err;
    }
    const out = stored.filter((e) => !this.unsaved.has(e.rtc_id));
    for (const m of this.unsaved.values()) if (m.outbox) out.push(m.outbox);
    return out;
  }

  async entries(): Promise<JournalEntry[]> {
    let stored: JournalEntry[] = [];
    try {
      stored = await tx(this.db, [S_JOURNAL], "readonly", async (t) => (await req(t.objectStore(S_JOURNAL).getAll())) as JournalEntry[]);
    } catch (err) {
      if (this.unsaved.size === 0) throw err;
    }
    return [...stored.filter((e) => !this.unsaved.has(e.rtc_id)), ...[...this.unsaved.values()].map((m) => m.journal)];
  }

  /** Forgets acknowledged calls older than `maxAgeMs` (their RTCs are long terminal). */
  async prune(maxAgeMs: number): Promise<number> {
    const before = Date.now() - maxAgeMs;
    return tx(this.db, [S_JOURNAL], "readwrite", async (t) => {
      const j = t.objectStore(S_JOURNAL);
      let n = 0;
      for (const e of (await req(j.getAll())) as JournalEntry[]) {
        if (e.phase === "acknowledged" && e.updated_at < before) {
          j.delete(e.rtc_id);
          n++;
        }
      }
      return n;
    });
  }

  private claim(rtc: RtcRef, tab: string, phase: JournalPhase, allowed: (cur: JournalEntry | undefined) => boolean): Promise<boolean> {
    const entry = (cur: JournalEntry | undefined): JournalEntry => {
      const now = Date.now();
      return { rtc_id: rtc.id, session_id: rtc.session_id, tool_name: rtc.tool_name, phase, tab, started_at: cur?.started_at ?? now, updated_at: now };
    };
    let seen: { cur: JournalEntry | undefined } | null = null;
    return this.write(
      rtc.id,
      async (t) => {
        const cur = await this.current(t, rtc.id);
        seen = { cur };
        if (!allowed(cur)) return { value: false, wrote: false };
        t.objectStore(S_JOURNAL).put(entry(cur));
        return { value: true, wrote: true };
      },
      // The check ran on what the transaction read (or, when even reading failed,
      // on memory alone): the claim holds in memory.
      () => {
        const cur = seen ? seen.cur : this.unsaved.get(rtc.id)?.journal;
        if (!allowed(cur)) return false;
        this.unsaved.set(rtc.id, { journal: entry(cur), outbox: this.unsaved.get(rtc.id)?.outbox ?? null });
        return true;
      },
    );
  }

  /** The entry of a call inside a transaction: memory's when its last write failed, else the stored one. */
  private async current(t: IDBTransaction, rtcId: string): Promise<JournalEntry | undefined> {
    const stored = (await req(t.objectStore(S_JOURNAL).get(rtcId))) as JournalEntry | undefined;
    return this.unsaved.get(rtcId)?.journal ?? stored;
  }

  /**
   * Runs a read-write transaction on the journal and outbox. When it wrote the
   * call's whole state, memory forgets the call (IndexedDB is up to date again);
   * when it failed, `fallback` keeps the change in memory and the failure is
   * reported.
   */
  private async write<T>(rtcId: string, fn: (t: IDBTransaction) => Promise<{ value: T; wrote: boolean }>, fallback: () => T): Promise<T> {
    try {
      const { value, wrote } = await tx(this.db, [S_JOURNAL, S_OUTBOX], "readwrite", fn);
      if (wrote) this.unsaved.delete(rtcId);
      return value;
    } catch (err) {
      this.events.emit("unsaved", new StorageError("tool results", err));
      return fallback();
    }
  }
}
