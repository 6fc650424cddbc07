import { type VirtualFS } from "../vfs/index.js";
import { type HostFunction } from "./host-api.js";
import type { LogLevel, RpcMethod } from "./protocol.js";
/** Options of {@link ScriptRunner}. Every limit has a default. */
export interface ScriptRunnerOptions {
    vfs: VirtualFS;
    /**
     * URL of sandbox.html. Defaults to the file next to the SDK bundle, i.e. the
     * server's `/sdk/sandbox.html` when the SDK is loaded from `/sdk/rtc-agent.js`.
     */
    sandboxUrl?: string | URL;
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
export declare const DEFAULT_SCRIPT_MEMORY_LIMIT_BYTES: number;
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
export declare const SCRIPTS_DIR = "/.scripts";
/** Thrown by {@link ScriptRunner.save} and {@link scriptPath} for bad input. */
export declare class ScriptError extends Error {
    readonly name = "ScriptError";
}
/** VFS path of a saved script; a trailing `.js` in `name` is accepted. */
export declare function scriptPath(name: string): string;
/**
 * Runs model-written JavaScript in a sandboxed, network-less worker (see
 * shared/reference/script-sandbox.md, design D). Runs execute one at a time, so
 * tearing the frame down at a deadline never takes another run with it.
 */
export declare class ScriptRunner {
    private readonly options;
    private readonly sandboxUrl;
    private readonly functions;
    private readonly lookup;
    private frame;
    private starting;
    private queue;
    private nextRun;
    private disposed;
    private readonly abortActive;
    readonly timeoutMs: number;
    private readonly bootTimeoutMs;
    private readonly maxLogEntries;
    private readonly maxLogChars;
    private readonly maxResultChars;
    private readonly maxMessages;
    private readonly memoryLimitBytes;
    constructor(options: ScriptRunnerOptions);
    /** Adds or replaces a host function callable from scripts. */
    setFunction(name: string, fn: HostFunction): void;
    removeFunction(name: string): void;
    /** Starts the sandbox frame ahead of the first run (optional). */
    warm(): Promise<void>;
    /** Runs inline code; `params` must be JSON-serialisable. */
    eval(code: string, params?: unknown, opts?: RunOptions): Promise<ScriptOutcome>;
    /** Runs the script saved under `name`. */
    run(name: string, params?: unknown, opts?: RunOptions): Promise<ScriptOutcome>;
    /**
     * Checks the code's syntax in the sandbox, then stores it as a saved script.
     * @throws ScriptError (bad name, syntax error) or VfsError (size limits).
     */
    save(name: string, code: string): Promise<{
        path: string;
        bytes: number;
        created: boolean;
    }>;
    /** Stops any running script and removes the sandbox frame. */
    dispose(): void;
    private enqueue;
    private ensureFrame;
    private killFrame;
    private execute;
    /** Drives one run from start to its single outcome: done, error, deadline or flood. */
    private supervise;
}
