// The client rules of the Topic channel (docs/protocol.md "Topic channel",
// shared/reference/realtime-recovery.md 3.7). All work runs on one serial queue,
// so publications that arrive during a refill or reset wait behind it: that queue
// is the buffer of rule 3.

import { RpcTimeout, type Session, type SessionListResult, type Update } from "../protocol/types.js";
import type { MethodName, MethodParams, MethodResult } from "../protocol/methods.js";
import type { Position } from "../state/db.js";
import { Emitter, SerialQueue, backoffMs } from "../util/emitter.js";

/**
 * Calls a v1 method; throws RpcError. Typed by the method map of `agent.call`, so
 * the SDK's own calls name an existing method and pass what it takes.
 */
export type Call = <M extends MethodName>(method: M, params: MethodParams<M>) => Promise<MethodResult<M>>;

/** Where updates go: the entity store (or a fake in unit tests). */
export interface TopicTarget {
  position(): Position | null;
  apply(updates: Update[]): Promise<void>;
  reset(epoch: string, offset: number, sessions: Session[]): Promise<void>;
}

export interface TopicSyncEvents {
  /** A reset happened: why, and the new position. */
  reset: { reason: string; epoch: string; offset: number };
  /** A refill with v1.update.list applied `count` updates. */
  refill: { from: number; to: number; count: number };
  /** A dropped duplicate. */
  duplicate: number;
  error: unknown;
}

export interface TopicSyncOptions {
  /** Page size of v1.update.list and v1.session.list. Default 200. */
  pageLimit?: number;
  /** Base delay of retries after a failed refill. Default 1000 ms. */
  retryBaseMs?: number;
}

export class TopicSync {
  readonly events = new Emitter<TopicSyncEvents>();
  private readonly queue = new SerialQueue();
  private readonly pageLimit: number;
  private readonly retryBaseMs: number;
  /** A task failed: some updates may have been skipped; refill to the top. */
  private dirty = false;
  private retries = 0;
  private retryTimer: ReturnType<typeof setTimeout> | null = null;
  private closed = false;

  constructor(
    private readonly target: TopicTarget,
    private readonly call: Call,
    options: TopicSyncOptions = {},
  ) {
    this.pageLimit = options.pageLimit ?? 200;
    this.retryBaseMs = options.retryBaseMs ?? 1000;
  }

  /** A Topic publication (rules 1-3). Resolves when it has been handled. */
  publication(u: Update): Promise<void> {
    return this.guarded(() => this.onPublication(u));
  }

  /**
   * The server subscribed this connection (rule 4). `recovered` publications, if
   * any, follow as ordinary publications.
   */
  subscribed(recovered: boolean, sp: Position | undefined): Promise<void> {
    return this.guarded(async () => {
      if (this.dirty) return this.refill(Infinity);
      if (recovered) return;
      const pos = this.target.position();
      if (!pos) return this.reset("no local state", sp?.epoch);
      if (!sp) return this.refill(Infinity);
      if (sp.epoch !== pos.epoch) return this.reset("epoch changed", sp.epoch);
      if (sp.offset < pos.offset) return this.reset("server behind the local position", sp.epoch);
      if (sp.offset > pos.offset) return this.refill(sp.offset);
    });
  }

  /** Catches up with the server's top (e.g. when asked to by the host). */
  resync(): Promise<void> {
    return this.guarded(() => this.refill(Infinity));
  }

  /** Runs a task between Topic updates (e.g. loading a session's lists). */
  exclusive<T>(task: () => Promise<T>): Promise<T> {
    return this.queue.run(task);
  }

  close(): void {
    this.closed = true;
    if (this.retryTimer) clearTimeout(this.retryTimer);
  }

  private async onPublication(u: Update): Promise<void> {
    let pos = this.target.position();
    if (!pos || u.epoch !== pos.epoch) {
      await this.reset(pos ? "epoch changed" : "no local state", u.epoch);
      pos = this.target.position();
      if (!pos) return;
    }
    if (u.epoch !== pos.epoch || u.offset <= pos.offset) {
      this.events.emit("duplicate", u.offset);
      return;
    }
    if (u.offset > pos.offset + 1) {
      await this.refill(u.offset - 1);
      pos = this.target.position();
      if (!pos || u.epoch !== pos.epoch || u.offset <= pos.offset) return;
      if (u.offset !== pos.offset + 1) throw new Error(`gap before offset ${u.offset} could not be filled (at ${pos.offset})`);
    }
    await this.target.apply([u]);
  }

  /** Rule 3: fetch updates after the stored offset until `upTo` (or the top). */
  private async refill(upTo: number): Promise<void> {
    let pos = this.target.position();
    if (!pos) return this.reset("no local state");
    const from = pos.offset;
    let count = 0;
    // A page that timed out is asked again at half the size (the connection's
    // deadline grows too), so a slow link still moves forward: never the same
    // page again and again. A page that arrived lets the next one grow back.
    let limit = this.pageLimit;
    while (pos.offset < upTo) {
      let res;
      try {
        res = await this.call("v1.update.list", { since_offset: pos.offset, epoch: pos.epoch, limit });
      } catch (err) {
        // At one update a page, a timeout is a failure like any other: retried with backoff.
        if (!(err instanceof RpcTimeout) || limit === 1 || this.closed) throw err;
        limit = Math.max(1, limit >> 1);
        continue;
      }
      limit = Math.min(this.pageLimit, limit * 2);
      if (res.reset) return this.reset("history not available", res.epoch);
      const next = res.updates.filter((u) => u.offset > pos!.offset);
      if (next.length === 0) break; // at the top
      const run: Update[] = [];
      let expect = pos.offset + 1;
      for (const u of next) {
        if (u.offset !== expect || u.epoch !== pos.epoch) break;
        run.push(u);
        expect++;
      }
      if (run.length === 0) return this.reset("history has a hole", res.epoch);
      await this.target.apply(run);
      count += run.length;
      pos = this.target.position()!;
    }
    this.dirty = false;
    if (count > 0) this.events.emit("refill", { from, to: pos.offset, count });
  }

  /**
   * Rule 5: drop local state, reload it with the list methods (each returns the
   * offset it was read at), store the epoch and that offset, continue.
   */
  private async reset(reason: string, epochHint?: string): Promise<void> {
    let epoch = epochHint;
    if (!epoch) epoch = (await this.call("v1.update.list", { since_offset: 0, limit: 1 })).epoch;
    const sessions: Session[] = [];
    let offset: number | null = null;
    let cursor: string | undefined;
    do {
      const page: SessionListResult = await this.call("v1.session.list", { cursor, limit: this.pageLimit });
      // The first page's offset is the lowest: updates after it may touch later
      // pages, and re-applying them is harmless (per-entity offsets).
      offset ??= page.offset;
      sessions.push(...page.sessions);
      cursor = page.next_cursor || undefined;
    } while (cursor);
    await this.target.reset(epoch, offset ?? 0, sessions);
    this.dirty = false;
    this.events.emit("reset", { reason, epoch, offset: offset ?? 0 });
  }

  /** Runs a task on the queue; a failure marks the state dirty and schedules a refill. */
  private guarded(task: () => Promise<void>): Promise<void> {
    return this.queue.run(async () => {
      if (this.closed) return;
      try {
        await task();
        this.retries = 0;
      } catch (err) {
        this.dirty = true;
        this.events.emit("error", err);
        this.scheduleRetry();
      }
    });
  }

  private scheduleRetry(): void {
    if (this.retryTimer || this.closed) return;
    const delay = backoffMs(this.retries++, this.retryBaseMs);
    this.retryTimer = setTimeout(() => {
      this.retryTimer = null;
      if (this.dirty) void this.guarded(() => this.refill(Infinity));
    }, delay);
  }
}
