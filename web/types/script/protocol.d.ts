/** Bumped when any message below changes shape; checked in the handshake. */
export declare const SANDBOX_PROTOCOL_VERSION = 3;
/** Marker key on the two window-level messages; everything else uses ports. */
export declare const SANDBOX_MARKER = "rtcAgentSandbox";
/** frame → parent window, posted as soon as the boot script runs. */
export interface FrameLoadedMessage {
    rtcAgentSandbox: "frame-loaded";
    version: number;
}
/** parent → frame window, with the control port in `ports[0]`. */
export interface HelloMessage {
    rtcAgentSandbox: "hello";
    version: number;
    /** What the frame is for: script runs (keeps a spare script worker) or grep/find. */
    role: SandboxRole;
    /** Script frames: the runs' memory cap, so spare workers load their engine for it early. */
    memoryLimitBytes?: number;
}
export type SandboxRole = "script" | "search";
/** What a run does with the code: execute it, or only compile it (syntax check). */
export type RunMode = "run" | "check";
/** host → frame (control port) → worker, with the run port in `ports[0]`. */
export interface RunMessage {
    t: "run";
    runId: string;
    mode: RunMode;
    code: string;
    /** JSON text of the script's `params`; JSON so only plain data crosses. */
    paramsJson: string;
    /** Largest accepted JSON text of the return value. */
    maxResultChars: number;
    /** Largest text of one console entry; longer ones are cut in the worker. */
    maxLogChars: number;
    /** Memory the script's engine may allocate; past it the run ends with MemoryLimitError. */
    memoryLimitBytes: number;
}
/** host → frame: stop and forget the worker of a finished run. */
export interface DropMessage {
    t: "drop";
    runId: string;
    /**
     * The run ended cleanly and its worker said it is reusable (engine freed, memory
     * small): keep it as the next run's worker instead of terminating it, which
     * saves loading the script engine again.
     */
    reuse?: boolean;
}
/** host → frame: start a search worker and hand it the port in `ports[0]`. */
export interface SearchStartMessage {
    t: "search";
    /** Names the worker for a later `drop` (as `runId`). */
    runId: string;
}
export type HostToFrame = RunMessage | DropMessage | SearchStartMessage;
/** frame → host on the control port. */
export type FrameToHost = {
    t: "ready";
    version: number;
}
/** The frame cannot run scripts at all (e.g. no CSP, not an opaque origin). */
 | {
    t: "fatal";
    message: string;
}
/** A run's worker failed outside the script (uncaught error at worker level). */
 | {
    t: "worker-error";
    runId: string;
    message: string;
};
export type LogLevel = "log" | "info" | "warn" | "error" | "debug";
/** Methods a script may call over its run port. */
export type RpcMethod = "fs.read" | "fs.write" | "fs.ls" | "fs.stat" | "fs.exists" | "fs.mkdir" | "fs.remove" | "fs.rename" | "fs.walk" | "call";
/** A thrown error, flattened for postMessage. */
export interface WireError {
    name: string;
    message: string;
    /** VfsError code, when the failure came from the file system. */
    code?: string;
    /** Stack frames inside the script only, with script-relative line numbers. */
    stack?: string;
}
/** worker → host on the run port. */
export type WorkerToHost = 
/** The engine is loaded and the script starts now: the run's deadline starts here. */
{
    t: "started";
} | {
    t: "log";
    level: LogLevel;
    text: string;
} | {
    t: "call";
    id: number;
    method: RpcMethod;
    args: unknown[];
} | {
    t: "done";
    ok: true;
    resultJson?: string;
    reusable?: boolean;
} | {
    t: "done";
    ok: false;
    error: WireError;
    reusable?: boolean;
};
/** host → worker on the run port: the answer to one `call`. */
export type HostToWorker = {
    t: "reply";
    id: number;
    ok: true;
    value: unknown;
} | {
    t: "reply";
    id: number;
    ok: false;
    error: WireError;
};
