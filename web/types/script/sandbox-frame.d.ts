import { type RunMessage, type SandboxRole } from "./protocol.js";
/** Raised when the sandbox cannot be started; the message says what to fix. */
export declare class SandboxError extends Error {
    readonly name = "SandboxError";
}
type WorkerErrorHandler = (runId: string, message: string) => void;
/** One live sandbox frame with its control port. */
export declare class SandboxFrame {
    private readonly iframe;
    private readonly control;
    private destroyed;
    /** Called when the frame reports that a run's worker failed outside the script. */
    onWorkerError: WorkerErrorHandler | null;
    private constructor();
    /**
     * Appends the frame to `document.body` (not to a shadow tree: moving an iframe
     * reloads it) and resolves once the sandbox reports ready.
     */
    static start(url: string, bootTimeoutMs: number, role?: SandboxRole, memoryLimitBytes?: number): Promise<SandboxFrame>;
    get alive(): boolean;
    /** Starts a run; `port` becomes the worker's end of the run channel. */
    run(msg: RunMessage, port: MessagePort): void;
    /** Starts a search worker named `runId`; `port` becomes its end of the channel. */
    startSearch(runId: string, port: MessagePort): void;
    /** Asks the frame to terminate a finished run's worker. */
    drop(runId: string, reuse?: boolean): void;
    /** Removes the frame, ending its process and every worker in it. */
    destroy(): void;
    private post;
}
export {};
