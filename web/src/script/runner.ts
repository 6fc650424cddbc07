import { isVfsError, type VirtualFS } from "../vfs/index.js";
import { serveCall, toWire, type HostFunction, type HostFunctionLookup } from "./host-api.js";
import { sha256Hex } from "../util/hash.js";
import type { LogLevel, RpcMethod, RunMessage, RunMode, WireError, WorkerToHost } from "./protocol.js";
import { SandboxError, SandboxFrame, sandboxLocation, type SandboxLocation } from "./sandbox-frame.js";

/** Options of {@link ScriptRunner}. Every limit has a default. */
export interface ScriptRunnerOptions {
  vfs: VirtualFS;
  /**
   * URL of sandbox.html. Defaults to the file next to the SDK bundle, i.e. the
   * server's `/sdk/sandbox.html` when the SDK is loaded from `/sdk/rtc-agent.js`.
   */
  sandboxUrl?: string | URL;
  /**
   * The RTC Agent server's sandbox page: when `sandboxUrl` is not given and the
   * default fails (an SDK bundled into the host's app), the error says to set it.
   */
  serverSandboxUrl?: string;
  /** Host functions callable as `rtcAgent.call(name, args)`. */
  functions?: Record<string, HostFunction>;
  /** Run deadline; the sandbox is torn down when it passes. Default 30 000 ms. */
  timeoutMs?: number;
  /** How long the sandbox frame may take to start. Default 10 000 ms. */
  bootTimeoutMs?: number;
  /** Console entries kept per run; later ones are counted, not kept. Default 200. */
  maxLogEntries?: number;
  /** Characters kept per console entry. Default 2 000. */
  maxLogChars?: number;
  /** Largest JSON text of a return value. Default 256 KiB. */
  maxResultChars?: number;
  /** Messages (logs + rtcAgent calls) one run may send before it is stopped. Default 10 000. */
  maxMessages?: number;
  /**
   * Memory the script's engine may allocate (its objects, strings, buffers). Past it
   * the run ends with a MemoryLimitError (`out_of_memory` set). Default 256 MiB.
   */
  memoryLimitBytes?: number;
}

/** Default memory cap of one script run. */
export const DEFAULT_SCRIPT_MEMORY_LIMIT_BYTES = 256 * 1024 * 1024;

/** One captured console call. */
export interface ScriptLogEntry {
  level: LogLevel;
  text: string;
}

/** What one `eval`/`run` produced. It never throws; failures set `ok: false`. */
export interface ScriptOutcome {
  ok: boolean;
  /** The script's JSON return value; `undefined` when it returned nothing or failed. */
  result?: unknown;
  logs: ScriptLogEntry[];
  /** Why the run failed, written for the model (`TypeError: ... (script:3:7)`). */
  error?: string;
  /** True when the run was stopped at its deadline. */
  timed_out?: boolean;
  /** True when the run was stopped at its memory limit (error `MemoryLimitError`, code ENOMEM). */
  out_of_memory?: boolean;
  /** Wall time of the run itself, excluding sandbox start-up. */
  duration_ms: number;
}

/**
 * Decides a call a running script makes through `rtcAgent` (fs.* or call): null
 * serves it at once; a promise is a question to the person, resolving to null
 * (go on) or the reason it was refused. The run's deadline stops while it waits.
 */
export type ScriptAuthorizer = (method: RpcMethod, args: unknown[]) => Promise<string | null> | null;

/** Per-call overrides. */
export interface RunOptions {
  timeoutMs?: number;
  /** Checks each `rtcAgent` call of the run (the executor's permission matrix). */
  authorize?: ScriptAuthorizer;
  /**
   * `run` only: the SHA-256 (hex) of the code the person approved, or null when
   * they were shown that no script was saved. Other code is not run.
   */
  expectSha256?: string | null;
}

/** Folder of saved scripts: `save {name}` writes `/.scripts/<name>.js`. */
export const SCRIPTS_DIR = "/.scripts";
const SCRIPT_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;

/** Thrown by {@link ScriptRunner.save} and {@link scriptPath} for bad input. */
export class ScriptError extends Error {
  override readonly name = "ScriptError";
}

/** VFS path of a saved script; a trailing `.js` in `name` is accepted. */
export function scriptPath(name: string): string {
  const base = name.endsWith(".js") ? name.slice(0, -3) : name;
  if (!SCRIPT_NAME.test(base)) {
    throw new ScriptError(
      `invalid script name ${JSON.stringify(name)}: use 1-64 letters, digits, '_', '-' or '.', starting with a letter or digit`,
    );
  }
  return `${SCRIPTS_DIR}/${base}.js`;
}

/**
 * Runs model-written JavaScript in a sandboxed, network-less worker (see
 * shared/reference/script-sandbox.md, design D). Runs execute one at a time, so
 * tearing the frame down at a deadline never takes another run with it.
 */
export class ScriptRunner {
  private readonly sandbox: SandboxLocation;
  private readonly functions = new Map<string, HostFunction>();
  private readonly lookup: HostFunctionLookup;
  private frame: SandboxFrame | null = null;
  private starting: Promise<SandboxFrame> | null = null;
  private queue: Promise<unknown> = Promise.resolve();
  private nextRun = 1;
  private disposed = false;
  /** Set once the console was told that the sandbox cannot start. */
  private warned = false;
  private readonly abortActive = new Set<(error: string) => void>();

  readonly timeoutMs: number;
  private readonly bootTimeoutMs: number;
  private readonly maxLogEntries: number;
  private readonly maxLogChars: number;
  private readonly maxResultChars: number;
  private readonly maxMessages: number;
  private readonly memoryLimitBytes: number;

  constructor(private readonly options: ScriptRunnerOptions) {
    this.sandbox = sandboxLocation(options.sandboxUrl, options.serverSandboxUrl);
    this.timeoutMs = options.timeoutMs ?? 30_000;
    this.memoryLimitBytes = options.memoryLimitBytes ?? DEFAULT_SCRIPT_MEMORY_LIMIT_BYTES;
    if (!Number.isSafeInteger(this.memoryLimitBytes) || this.memoryLimitBytes < 1024 * 1024) {
      throw new TypeError("memoryLimitBytes must be an integer of at least 1 MiB");
    }
    this.bootTimeoutMs = options.bootTimeoutMs ?? 10_000;
    this.maxLogEntries = options.maxLogEntries ?? 200;
    this.maxLogChars = options.maxLogChars ?? 2_000;
    this.maxResultChars = options.maxResultChars ?? 256 * 1024;
    this.maxMessages = options.maxMessages ?? 10_000;
    for (const [name, fn] of Object.entries(options.functions ?? {})) this.setFunction(name, fn);
    this.lookup = { get: (n) => this.functions.get(n), names: () => [...this.functions.keys()].sort() };
  }

  /** Adds or replaces a host function callable from scripts. */
  setFunction(name: string, fn: HostFunction): void {
    if (typeof fn !== "function") throw new TypeError(`host function ${name} must be a function`);
    this.functions.set(name, fn);
  }

  removeFunction(name: string): void {
    this.functions.delete(name);
  }

  /** Starts the sandbox frame ahead of the first run (optional). */
  async warm(): Promise<void> {
    await this.ensureFrame();
  }

  /** Runs inline code; `params` must be JSON-serialisable. */
  eval(code: string, params: unknown = {}, opts: RunOptions = {}): Promise<ScriptOutcome> {
    return this.enqueue(() => this.execute("run", code, params, opts.timeoutMs ?? this.timeoutMs, opts.authorize));
  }

  /** Runs the script saved under `name`. */
  async run(name: string, params: unknown = {}, opts: RunOptions = {}): Promise<ScriptOutcome> {
    let code: string | null = null;
    try {
      const path = scriptPath(name);
      try {
        code = await this.options.vfs.readFile(path);
      } catch (err) {
        if (!isVfsError(err, "ENOENT")) throw err;
      }
      // The code that runs is the string hashed here, never a second read.
      if (opts.expectSha256 !== undefined && (code === null ? null : await sha256Hex(code)) !== opts.expectSha256) {
        throw new ScriptError(`the saved script ${JSON.stringify(name)} changed after the user approved it, so it was not run; call it again to show the user the new code`);
      }
      if (code === null) {
        throw new ScriptError(`no saved script named ${JSON.stringify(name)} (looked for ${path}); save it first, or list saved scripts with ls ${SCRIPTS_DIR}`);
      }
    } catch (err) {
      return { ok: false, logs: [], error: (err as Error).message, duration_ms: 0 };
    }
    return this.eval(code, params, opts);
  }

  /**
   * Checks the code's syntax in the sandbox, then stores it as a saved script.
   * @throws ScriptError (bad name, syntax error) or VfsError (size limits).
   */
  async save(name: string, code: string): Promise<{ path: string; bytes: number; created: boolean }> {
    const path = scriptPath(name);
    if (typeof code !== "string" || code.trim() === "") throw new ScriptError("code must be a non-empty string");
    const check = await this.enqueue(() => this.execute("check", code, {}, this.timeoutMs));
    if (!check.ok) throw new ScriptError(`script ${JSON.stringify(name)} was not saved: ${check.error ?? "check failed"}`);
    return this.options.vfs.writeFile(path, code);
  }

  /** Stops any running script and removes the sandbox frame. */
  dispose(): void {
    this.disposed = true;
    for (const abort of [...this.abortActive]) abort("the script runner was shut down");
    this.killFrame();
  }

  private enqueue<T>(job: () => Promise<T>): Promise<T> {
    const next = this.queue.then(job, job);
    this.queue = next.catch(() => undefined);
    return next;
  }

  private ensureFrame(): Promise<SandboxFrame> {
    if (this.disposed) return Promise.reject(new Error("the script runner was shut down"));
    if (this.frame?.alive) return Promise.resolve(this.frame);
    this.starting ??= SandboxFrame.start(this.sandbox, this.bootTimeoutMs, "script", this.memoryLimitBytes).then(
      (frame) => {
        this.starting = null;
        if (this.disposed) {
          frame.destroy();
          throw new Error("the script runner was shut down");
        }
        this.frame = frame;
        return frame;
      },
      (err: unknown) => {
        this.starting = null;
        // The model reads it as the script's error; the page's developer reads it here.
        if (err instanceof SandboxError && !this.warned) {
          this.warned = true;
          console.warn(`rtc-agent: scripts cannot run: ${err.message}`);
        }
        throw err;
      },
    );
    return this.starting;
  }

  private killFrame(): void {
    this.frame?.destroy();
    this.frame = null;
  }

  private async execute(mode: RunMode, code: string, params: unknown, timeoutMs: number, authorize?: ScriptAuthorizer): Promise<ScriptOutcome> {
    if (typeof code !== "string") return failed("code must be a string");
    let paramsJson: string | undefined;
    try {
      paramsJson = JSON.stringify(params ?? {});
    } catch (err) {
      return failed(`params are not JSON-serialisable: ${(err as Error).message}`);
    }
    if (paramsJson === undefined) return failed("params must be JSON data");
    let frame: SandboxFrame;
    try {
      frame = await this.ensureFrame();
    } catch (err) {
      return failed((err as Error).message);
    }
    const msg: RunMessage = {
      t: "run", runId: `run-${this.nextRun++}`, mode, code, paramsJson,
      maxResultChars: this.maxResultChars, maxLogChars: this.maxLogChars,
      memoryLimitBytes: this.memoryLimitBytes,
    };
    return this.supervise(frame, msg, timeoutMs, authorize);
  }

  /** Drives one run from start to its single outcome: done, error, deadline or flood. */
  private supervise(frame: SandboxFrame, msg: RunMessage, timeoutMs: number, authorize?: ScriptAuthorizer): Promise<ScriptOutcome> {
    const channel = new MessageChannel();
    const port = channel.port1;
    const logs: ScriptLogEntry[] = [];
    let dropped = 0;
    let messages = 0;
    let started = performance.now();

    return new Promise<ScriptOutcome>((resolve) => {
      let finished = false;
      const finish = (outcome: Omit<ScriptOutcome, "logs" | "duration_ms">, kill: boolean, reuse = false) => {
        if (finished) return;
        finished = true;
        clearTimeout(startup);
        deadline?.stop();
        this.abortActive.delete(abort);
        // Close our end first so a dying worker's queued calls reach nobody.
        port.onmessage = null;
        port.close();
        if (kill) {
          if (this.frame === frame) this.killFrame();
          else frame.destroy();
          if (!this.disposed) setTimeout(() => void this.ensureFrame().catch(() => undefined), 0);
        } else if (frame.alive) {
          frame.drop(msg.runId, reuse);
        }
        if (dropped > 0) logs.push({ level: "warn", text: `[${dropped} more console entries were dropped]` });
        resolve({ ...outcome, logs, duration_ms: Math.round(performance.now() - started) });
      };
      const abort = (error: string) => finish({ ok: false, error }, true);
      this.abortActive.add(abort);
      // The deadline counts the script's own time: it starts when the worker reports
      // its engine loaded (a fresh frame's first run waits for that), so start-up
      // has its own limit.
      let deadline: Deadline | null = null;
      const startup = setTimeout(
        () => finish({ ok: false, error: `the script engine did not start within ${this.bootTimeoutMs} ms` }, true),
        this.bootTimeoutMs,
      );
      frame.onWorkerError = (runId, message) => {
        if (runId === msg.runId) finish({ ok: false, error: `script worker failed: ${message}` }, true);
      };
      port.onmessage = (e: MessageEvent) => {
        if (++messages > this.maxMessages) {
          finish({ ok: false, error: `script sent more than ${this.maxMessages} messages (console entries and rtcAgent calls) and was stopped` }, true);
          return;
        }
        const m = e.data as WorkerToHost;
        if (m?.t === "started") {
          if (deadline) return;
          clearTimeout(startup);
          started = performance.now();
          deadline = new Deadline(timeoutMs, () =>
            finish({ ok: false, timed_out: true, error: `script timed out after ${timeoutMs} ms and was stopped` }, true),
          );
        } else if (m?.t === "log") {
          // The worker already cut the text (adding a note); this cut only guards against a tampered worker.
          if (logs.length < this.maxLogEntries) logs.push({ level: m.level, text: String(m.text).slice(0, this.maxLogChars + 64) });
          else dropped++;
        } else if (m?.t === "call") {
          const args = Array.isArray(m.args) ? m.args : [];
          const serve = () =>
            serveCall(m.method, args, this.options.vfs, this.lookup).then(
              (value) => !finished && port.postMessage({ t: "reply", id: m.id, ok: true, value }),
              (err: unknown) => !finished && port.postMessage({ t: "reply", id: m.id, ok: false, error: toWire(err) }),
            );
          // A call of a host function that does not exist fails at once: nobody is
          // asked about a name that runs nothing (`__proto__` included: the
          // functions are a Map, never an object's inherited properties).
          const unknown = m.method === "call" && !(typeof args[0] === "string" && this.functions.has(args[0]));
          const asking = unknown ? null : (authorize?.(m.method, args) ?? null);
          if (!asking) return void serve();
          deadline?.pause();
          void asking.then(
            (refusal) => {
              deadline?.resume();
              if (finished) return;
              if (refusal === null) return void serve();
              port.postMessage({ t: "reply", id: m.id, ok: false, error: { name: "PermissionError", message: refusal } });
            },
            (err: unknown) => {
              deadline?.resume();
              if (!finished) port.postMessage({ t: "reply", id: m.id, ok: false, error: toWire(err) });
            },
          );
        } else if (m?.t === "done") {
          const reuse = m.reusable === true;
          if (m.ok) finish({ ok: true, result: parseResult(m.resultJson) }, false, reuse);
          else if (m.error?.name === "MemoryLimitError") finish({ ok: false, out_of_memory: true, error: describeError(m.error) }, false);
          else finish({ ok: false, error: describeError(m.error) }, false, reuse);
        }
      };
      try {
        frame.run(msg, channel.port2);
      } catch (err) {
        finish({ ok: false, error: (err as Error).message }, true);
      }
    });
  }
}

function failed(error: string): ScriptOutcome {
  return { ok: false, logs: [], error, duration_ms: 0 };
}

function parseResult(json: string | undefined): unknown {
  if (json === undefined) return undefined;
  try {
    return JSON.parse(json);
  } catch {
    return undefined; // the worker produced it with JSON.stringify; cannot happen unless tampered
  }
}

function describeError(e: WireError | undefined): string {
  if (!e) return "script failed";
  const head = e.name && !e.message.startsWith(`${e.code}:`) ? `${e.name}: ${e.message}` : e.message;
  return e.stack ? `${head}\n${e.stack}` : head;
}

/**
 * A run's deadline that stops while the person is asked about a call the script
 * made (pauses nest: it runs again when the last question is answered).
 */
class Deadline {
  private timer: ReturnType<typeof setTimeout> | undefined;
  private left: number;
  private since = 0;
  private paused = 0;
  private stopped = false;

  constructor(ms: number, private readonly expire: () => void) {
    this.left = ms;
    this.arm();
  }

  pause(): void {
    if (this.stopped || this.paused++ > 0) return;
    clearTimeout(this.timer);
    this.left = Math.max(0, this.left - (performance.now() - this.since));
  }

  resume(): void {
    if (this.stopped || this.paused === 0 || --this.paused > 0) return;
    this.arm();
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
  }

  private arm(): void {
    this.since = performance.now();
    this.timer = setTimeout(this.expire, this.left);
  }
}
