// Delivers outbox entries to the server: `v1.rtc.submit_result` for results,
// `v1.rtc.update_status rejected` for refusals. Each entry is retried forever
// with the same client_id and a backoff of 1 s, 2 s, 4 s … capped at 30 s, until
// the server answers (a terminal RTC is an answer too: the stored outcome wins).
// A reconnect retries everything at once.

import { RpcError, type RtcResult } from "../protocol/types.js";
import type { Call } from "../realtime/topic.js";
import { Emitter, backoffMs } from "../util/emitter.js";
import type { Execution, Journal, Outcome, OutboxEntry } from "./journal.js";
import type { ToolResult } from "../tools/types.js";

export interface OutboxEvents {
  /** The server has the outcome (or it can never be delivered: `dropped`). */
  acknowledged: { rtcId: string; dropped?: string };
  /** One attempt failed; the next one follows after `retryInMs`. */
  retry: { rtcId: string; attempt: number; retryInMs: number; error: string };
}

export interface OutboxOptions {
  baseMs?: number;
  capMs?: number;
}

/** Largest output submitted as is; the request limit of the server is 1 MiB. */
export const MAX_OUTPUT_CHARS = 900_000;

export class Outbox {
  readonly events = new Emitter<OutboxEvents>();
  private readonly attempts = new Map<string, number>();
  private readonly due = new Map<string, number>();
  private readonly inFlight = new Set<string>();
  private timer: ReturnType<typeof setTimeout> | null = null;
  private timerAt = 0;
  private running = false;
  private readonly baseMs: number;
  private readonly capMs: number;

  constructor(
    private readonly journal: Journal,
    private readonly call: Call,
    opts: OutboxOptions = {},
  ) {
    this.baseMs = opts.baseMs ?? 1000;
    this.capMs = opts.capMs ?? 30_000;
  }

  /** Starts delivering (this tab executes). */
  start(): void {
    this.running = true;
    this.kick(true);
  }

  stop(): void {
    this.running = false;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  /** Attempts every due entry now; `all` also those waiting for their backoff. */
  kick(all = false): void {
    if (all) this.due.clear();
    void this.flush();
  }

  private async flush(): Promise<void> {
    if (!this.running) return;
    let entries: OutboxEntry[];
    try {
      entries = await this.journal.outbox();
    } catch {
      return this.schedule(this.baseMs);
    }
    const now = Date.now();
    let next = Infinity;
    for (const e of entries) {
      if (this.inFlight.has(e.rtc_id)) continue;
      const at = this.due.get(e.rtc_id) ?? 0;
      if (at > now) {
        next = Math.min(next, at);
        continue;
      }
      void this.attempt(e);
    }
    if (next !== Infinity) this.schedule(next - now);
  }

  /** Wakes the loop after `ms`, unless it is already due to wake earlier. */
  private schedule(ms: number): void {
    const at = Date.now() + Math.max(0, ms);
    if (this.timer && this.timerAt <= at) return;
    if (this.timer) clearTimeout(this.timer);
    this.timerAt = at;
    this.timer = setTimeout(() => {
      this.timer = null;
      void this.flush();
    }, Math.max(0, ms));
  }

  private async attempt(e: OutboxEntry): Promise<void> {
    this.inFlight.add(e.rtc_id);
    try {
      if (e.kind === "reject") {
        // `denial`: the person said no to a confirmation (with their own words, if any).
        const approval = e.denial === undefined ? {} : { approval: { scope: "once" as const, ...(e.denial ? { reason: e.denial } : {}) } };
        await this.call("v1.rtc.update_status", { rtc_id: e.rtc_id, status: "rejected", client_id: e.client_id, reason: e.reason, ...approval });
      } else if (e.ok) {
        await this.call("v1.rtc.submit_result", { rtc_id: e.rtc_id, client_id: e.client_id, ok: true, output: e.output, ...(e.execution ? { execution: e.execution } : {}) });
      } else {
        await this.call("v1.rtc.submit_result", { rtc_id: e.rtc_id, client_id: e.client_id, ok: false, error: e.error, ...(e.execution ? { execution: e.execution } : {}) });
      }
      await this.done(e.rtc_id);
    } catch (err) {
      await this.failed(e, err);
    } finally {
      this.inFlight.delete(e.rtc_id);
    }
  }

  private async done(rtcId: string, dropped?: string): Promise<void> {
    await this.journal.acknowledge(rtcId);
    this.attempts.delete(rtcId);
    this.due.delete(rtcId);
    this.events.emit("acknowledged", dropped ? { rtcId, dropped } : { rtcId });
  }

  private async failed(e: OutboxEntry, err: unknown): Promise<void> {
    const code = err instanceof RpcError ? err.code : "network";
    const permanent = err instanceof RpcError && !err.temporary && code !== "unauthenticated";
    if (permanent) {
      if (code === "too_large" && e.kind === "result") {
        // Keep the call honest for the model instead of retrying forever.
        await this.journal.replace({ rtc_id: e.rtc_id, client_id: e.client_id, kind: "result", ok: false, error: "the tool result was too large to send to the server", created_at: e.created_at });
        return this.kick();
      }
      // conflict: the RTC ended otherwise (stopped, timed out); not_found/forbidden:
      // the session is gone or not ours. Nobody can use this outcome any more.
      return this.done(e.rtc_id, `${code}: ${(err as Error).message}`);
    }
    const n = this.attempts.get(e.rtc_id) ?? 0;
    this.attempts.set(e.rtc_id, n + 1);
    const wait = backoffMs(n, this.baseMs, this.capMs);
    this.due.set(e.rtc_id, Date.now() + wait);
    this.events.emit("retry", { rtcId: e.rtc_id, attempt: n + 1, retryInMs: wait, error: String((err as Error)?.message ?? err) });
    this.schedule(wait);
  }
}

/**
 * What a tool's result is submitted as: text cut to fit the server's request
 * limit, JSON data as it is (a host tool's `value`) or, when that is past the
 * limit, a failure the model reads: data cannot be cut, and the host's typed
 * view of the output (`InferToolTypes`) gets the tool's value or nothing.
 */
export function resultOutcome(result: ToolResult, execution?: Execution): Outcome {
  const ex = execution ? { execution } : {};
  if (!result.ok) return { kind: "result", ok: false, error: fitOutput(result.error), ...ex };
  if (result.value === undefined) return { kind: "result", ok: true, output: fitOutput(result.output), ...ex };
  if (result.output.length <= MAX_OUTPUT_CHARS) return { kind: "result", ok: true, output: result.value, ...ex };
  return {
    kind: "result",
    ok: false,
    error: `the result is ${result.output.length} characters of JSON, more than the ${MAX_OUTPUT_CHARS} a result may have; ask for less`,
    ...(execution ? { execution: { ...execution, outcome: "error" as const } } : {}),
  };
}

/** Bounds an output so the submission fits the server's request limit. */
export function fitOutput(output: string): string {
  if (output.length <= MAX_OUTPUT_CHARS) return output;
  const head = output.slice(0, Math.floor(MAX_OUTPUT_CHARS * 0.8));
  const tail = output.slice(output.length - Math.floor(MAX_OUTPUT_CHARS * 0.2));
  return `${head}\n…[${output.length - head.length - tail.length} characters cut to fit the submission limit]…\n${tail}`;
}
