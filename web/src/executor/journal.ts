// The executor's journal and outbox in IndexedDB (ARCHITECTURE invariant 6).
//
// journal: what this device did with an RTC. "executing" is written, in a
//   transaction that first checks nobody claimed the call, before any side effect;
//   so a call is never started twice, whatever happens to tabs or the page.
// outbox: a result (or a refusal) waiting for the server's acknowledgement. It is
//   written in the same transaction that ends the journal entry, so a result is
//   never lost between "tool finished" and "server knows".

import { S_JOURNAL, S_OUTBOX, req, tx } from "../state/db.js";
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

export class Journal {
  constructor(private readonly db: IDBDatabase) {}

  async get(rtcId: string): Promise<{ journal?: JournalEntry; outbox?: OutboxEntry }> {
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
    return tx(this.db, [S_JOURNAL, S_OUTBOX], "readwrite", async (t) => {
      const j = t.objectStore(S_JOURNAL);
      const cur = (await req(j.get(rtc.id))) as JournalEntry | undefined;
      if (cur && (cur.phase === "finished" || cur.phase === "acknowledged")) return null;
      const now = Date.now();
      const entry = { ...outcome, rtc_id: rtc.id, client_id: crypto.randomUUID(), created_at: now } as OutboxEntry;
      j.put({ rtc_id: rtc.id, session_id: rtc.session_id, tool_name: rtc.tool_name, phase: "finished", tab, started_at: cur?.started_at ?? now, updated_at: now } satisfies JournalEntry);
      t.objectStore(S_OUTBOX).put(entry);
      return entry;
    });
  }

  /** Marks a call as done without a result to send (it ended on the server first). */
  async close(rtc: RtcRef, tab: string): Promise<void> {
    await tx(this.db, [S_JOURNAL, S_OUTBOX], "readwrite", async (t) => {
      const now = Date.now();
      const cur = (await req(t.objectStore(S_JOURNAL).get(rtc.id))) as JournalEntry | undefined;
      t.objectStore(S_JOURNAL).put({ rtc_id: rtc.id, session_id: rtc.session_id, tool_name: rtc.tool_name, phase: "acknowledged", tab, started_at: cur?.started_at ?? now, updated_at: now } satisfies JournalEntry);
      t.objectStore(S_OUTBOX).delete(rtc.id);
    });
  }

  /** The server acknowledged the outcome: drop it from the outbox. */
  async acknowledge(rtcId: string): Promise<void> {
    await tx(this.db, [S_JOURNAL, S_OUTBOX], "readwrite", async (t) => {
      const j = t.objectStore(S_JOURNAL);
      const cur = (await req(j.get(rtcId))) as JournalEntry | undefined;
      if (cur) j.put({ ...cur, phase: "acknowledged", updated_at: Date.now() });
      t.objectStore(S_OUTBOX).delete(rtcId);
    });
  }

  /** Replaces an outbox entry's outcome (e.g. a result too large to submit), keeping its client id. */
  async replace(entry: OutboxEntry): Promise<void> {
    await tx(this.db, [S_OUTBOX], "readwrite", async (t) => {
      t.objectStore(S_OUTBOX).put(entry);
    });
  }

  async outbox(): Promise<OutboxEntry[]> {
    return tx(this.db, [S_OUTBOX], "readonly", async (t) => (await req(t.objectStore(S_OUTBOX).getAll())) as OutboxEntry[]);
  }

  async entries(): Promise<JournalEntry[]> {
    return tx(this.db, [S_JOURNAL], "readonly", async (t) => (await req(t.objectStore(S_JOURNAL).getAll())) as JournalEntry[]);
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
    return tx(this.db, [S_JOURNAL], "readwrite", async (t) => {
      const j = t.objectStore(S_JOURNAL);
      const cur = (await req(j.get(rtc.id))) as JournalEntry | undefined;
      if (!allowed(cur)) return false;
      const now = Date.now();
      j.put({ rtc_id: rtc.id, session_id: rtc.session_id, tool_name: rtc.tool_name, phase, tab, started_at: cur?.started_at ?? now, updated_at: now } satisfies JournalEntry);
      return true;
    });
  }
}
