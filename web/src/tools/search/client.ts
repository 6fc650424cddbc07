// Page side of grep and find: sends the work to a worker in a sandbox frame of its
// own (the host page's CSP usually forbids blob: workers, and a worker URL must be
// same-origin with the page, so the SDK's frame is the one place it can start a
// worker), under a deadline. A request that overruns it ends with a timeout
// error; its frame is removed and the next request gets a fresh frame and worker.

import { SandboxFrame, SandboxError, sandboxLocation, type SandboxLocation } from "../../script/sandbox-frame.js";
import type { FindRequest, FindResult, GrepRequest, GrepResult } from "./engine.js";
import { searchInPage } from "./in-page.js";
import type { SearchReply, SearchRequest, WorkerGrep } from "./protocol.js";

/** Default deadline of one grep or find. */
export const DEFAULT_SEARCH_TIMEOUT_MS = 10_000;

export interface SearchClientOptions {
  /** URL of sandbox.html; defaults to the file next to the SDK bundle. */
  sandboxUrl?: string | URL;
  /** The RTC Agent server's sandbox page, named in the error when the default fails. */
  serverSandboxUrl?: string;
  /** Deadline of one request. Default 10 000 ms. */
  timeoutMs?: number;
  /** How long the frame may take to start. Default 10 000 ms. */
  bootTimeoutMs?: number;
  /** File contents the worker keeps between searches (UTF-16 bytes). Default 32 MiB. */
  keepBytes?: number;
}

/** Largest batch of contents in one message (UTF-16 bytes): its copy must not stall the page. */
const PUT_BATCH_BYTES = 1024 * 1024;

/**
 * While the worker is still starting, a request over at most this many
 * characters (contents for grep, paths for find) runs in the page instead of
 * waiting: RE2 takes linear time, so that is a few milliseconds of the page's
 * time, against the frame's ~300 ms to start.
 */
export const IN_PAGE_MAX_CHARS = 256 * 1024;

/** A request that ran past its deadline and was stopped. */
export class SearchTimeoutError extends Error {
  override readonly name = "SearchTimeoutError";
}

/** Failure reported by the worker; `name` is the engine's error class name. */
export class SearchFailure extends Error {
  constructor(
    override readonly name: string,
    message: string,
  ) {
    super(message);
  }
}

/** One grep or find as the page holds it (grep with contents). */
type Job = { t: "grep"; id: number; req: GrepRequest } | { t: "find"; id: number; req: FindRequest };

interface Live {
  port: MessagePort;
  runId: string;
  /** What the worker keeps: path → content key, least recently used first. */
  kept: Map<string, { key: string; bytes: number }>;
  keptBytes: number;
}

export class SearchClient {
  readonly timeoutMs: number;
  private readonly sandbox: SandboxLocation;
  private readonly bootTimeoutMs: number;
  private readonly keepBytes: number;
  private frame: Promise<SandboxFrame> | null = null;
  private worker: Live | null = null;
  /** The worker being started (one at a time). */
  private starting: Promise<Live | null> | null = null;
  private queue: Promise<unknown> = Promise.resolve();
  private nextId = 1;
  private disposed = false;
  /** Set once the frame could not start; requests then run in the page. */
  private inPage = false;
  /** Workers replaced after a deadline (diagnostics, tests). */
  restarts = 0;

  constructor(options: SearchClientOptions = {}) {
    this.sandbox = sandboxLocation(options.sandboxUrl, options.serverSandboxUrl);
    this.timeoutMs = options.timeoutMs ?? DEFAULT_SEARCH_TIMEOUT_MS;
    this.bootTimeoutMs = options.bootTimeoutMs ?? 10_000;
    this.keepBytes = options.keepBytes ?? 32 * 1024 * 1024;
  }

  grep(req: GrepRequest, timeoutMs = this.timeoutMs): Promise<GrepResult> {
    return this.enqueue(() => this.request({ t: "grep", id: this.nextId++, req }, timeoutMs)) as Promise<GrepResult>;
  }

  find(req: FindRequest, timeoutMs = this.timeoutMs): Promise<FindResult> {
    return this.enqueue(() => this.request({ t: "find", id: this.nextId++, req }, timeoutMs)) as Promise<FindResult>;
  }

  /** Starts the frame and a worker ahead of the first request (optional). */
  async warm(): Promise<void> {
    await this.ensureWorker().catch(() => undefined);
  }

  dispose(): void {
    this.disposed = true;
    this.stopWorker();
    void this.frame?.then((f) => f.destroy(), () => undefined);
    this.frame = null;
  }

  private enqueue<T>(job: () => Promise<T>): Promise<T> {
    const next = this.queue.then(job, job);
    this.queue = next.catch(() => undefined);
    return next;
  }

  private async request(msg: Job, timeoutMs: number): Promise<GrepResult | FindResult> {
    if (this.disposed) throw new Error("the search service was shut down");
    if (!this.worker && !this.inPage && charsOf(msg) <= IN_PAGE_MAX_CHARS) {
      void this.warm();
      return searchInPage(msg.t, msg.req);
    }
    let live: Live | null;
    try {
      live = await this.ensureWorker();
    } catch (err) {
      if (!(err instanceof SandboxError)) throw err;
      live = null;
    }
    // No frame (this page's CSP blocks it): RE2 is linear-time, so running here
    // cannot hang the page on a hostile pattern, only take time in proportion to the input.
    if (!live) return searchInPage(msg.t, msg.req);
    const worker = live;
    const wire: SearchRequest = msg.t === "grep" ? { t: "grep", id: msg.id, req: await this.ship(worker, msg.req) } : msg;
    if (this.worker !== worker) throw new Error("the search worker was stopped");
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        // Removing the frame ends its process at once; Worker.terminate() alone
        // leaves the loop ~2 s of CPU. The next request starts both afresh.
        this.stopWorker();
        void this.frame?.then((f) => f.destroy(), () => undefined);
        this.frame = null;
        this.restarts++;
        reject(new SearchTimeoutError(`${msg.t} timed out after ${timeoutMs} ms and was stopped; use a simpler pattern or a narrower path`));
      }, timeoutMs);
      worker.port.onmessage = (e: MessageEvent) => {
        const r = e.data as SearchReply;
        if (r?.t !== "result" || r.id !== msg.id) return;
        clearTimeout(timer);
        worker.port.onmessage = null;
        this.trim(worker);
        if (r.ok) resolve(r.value);
        else reject(new SearchFailure(r.name, r.message));
      };
      worker.port.postMessage(wire);
    });
  }

  /**
   * Sends the worker the contents it does not hold yet, in batches with a turn of
   * the event loop between them, and returns the request naming files only.
   */
  private async ship(live: Live, req: GrepRequest): Promise<WorkerGrep> {
    const files = req.files.map((f) => ({ path: f.path, key: f.key ?? `h${hashOf(f.content)}` }));
    let batch: { path: string; key: string; content: string }[] = [];
    let batchBytes = 0;
    const flush = async () => {
      if (batch.length === 0) return;
      live.port.postMessage({ t: "put", files: batch } satisfies SearchRequest);
      batch = [];
      batchBytes = 0;
      await new Promise((r) => setTimeout(r, 0));
    };
    for (let i = 0; i < files.length; i++) {
      const { path, key } = files[i]!;
      const content = req.files[i]!.content;
      const had = live.kept.get(path);
      live.kept.delete(path); // re-insert below: most recently used last
      if (had?.key === key) {
        live.kept.set(path, had);
        continue;
      }
      live.keptBytes += content.length * 2 - (had?.bytes ?? 0);
      live.kept.set(path, { key, bytes: content.length * 2 });
      batch.push({ path, key, content });
      batchBytes += content.length * 2;
      if (batchBytes >= PUT_BATCH_BYTES) await flush();
    }
    await flush();
    return { pattern: req.pattern, ignoreCase: req.ignoreCase, files, maxMatches: req.maxMatches, maxLineChars: req.maxLineChars };
  }

  /** Makes the worker forget the least recently used contents above the cap. */
  private trim(live: Live): void {
    const drop: string[] = [];
    for (const [path, k] of live.kept) {
      if (live.keptBytes <= this.keepBytes) break;
      live.kept.delete(path);
      live.keptBytes -= k.bytes;
      drop.push(path);
    }
    if (drop.length > 0) live.port.postMessage({ t: "drop", paths: drop } satisfies SearchRequest);
  }

  private ensureWorker(): Promise<Live | null> {
    if (this.inPage) return Promise.resolve(null);
    if (this.worker) return Promise.resolve(this.worker);
    this.starting ??= this.startWorker().finally(() => (this.starting = null));
    return this.starting;
  }

  private async startWorker(): Promise<Live | null> {
    this.frame ??= SandboxFrame.start(this.sandbox, this.bootTimeoutMs, "search");
    let frame: SandboxFrame;
    try {
      frame = await this.frame;
    } catch (err) {
      this.frame = null;
      if (err instanceof SandboxError) {
        this.inPage = true;
        console.warn(`rtc-agent: grep and find run in the page: ${err.message}`);
      }
      throw err;
    }
    const channel = new MessageChannel();
    const live: Live = { port: channel.port1, runId: `search-${this.nextId++}`, kept: new Map(), keptBytes: 0 };
    // Deadlines cover the search only, not starting the worker (which loads RE2).
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        live.port.close();
        if (frame.alive) frame.drop(live.runId);
        reject(new SandboxError(`the search worker did not start within ${this.bootTimeoutMs} ms`));
      }, this.bootTimeoutMs);
      live.port.onmessage = (e: MessageEvent) => {
        if ((e.data as SearchReply)?.t !== "ready") return;
        clearTimeout(timer);
        live.port.onmessage = null;
        resolve();
      };
      frame.startSearch(live.runId, channel.port2);
    });
    if (this.disposed) {
      live.port.close();
      if (frame.alive) frame.drop(live.runId);
      throw new Error("the search service was shut down");
    }
    this.worker = live;
    return live;
  }

  /** Closes our end first (a dying worker's late reply reaches nobody), then terminates it. */
  private stopWorker(): void {
    const live = this.worker;
    if (!live) return;
    this.worker = null;
    live.port.onmessage = null;
    live.port.close();
    void this.frame?.then((f) => f.alive && f.drop(live.runId), () => undefined);
  }
}

/** Characters a request hands the engine. */
function charsOf(msg: Job): number {
  let n = 0;
  if (msg.t === "grep") for (const f of msg.req.files) n += f.content.length;
  else for (const s of msg.req.subjects) n += s.length;
  return n;
}

/** A content key for files given without one (FNV-1a over the text). */
function hashOf(s: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
  return `${s.length}:${(h >>> 0).toString(36)}`;
}
