import { type FindRequest, type FindResult, type GrepRequest, type GrepResult } from "./engine.js";
/** Default deadline of one grep or find. */
export declare const DEFAULT_SEARCH_TIMEOUT_MS = 10000;
export interface SearchClientOptions {
    /** URL of sandbox.html; defaults to the file next to the SDK bundle. */
    sandboxUrl?: string | URL;
    /** Deadline of one request. Default 10 000 ms. */
    timeoutMs?: number;
    /** How long the frame may take to start. Default 10 000 ms. */
    bootTimeoutMs?: number;
    /** File contents the worker keeps between searches (UTF-16 bytes). Default 32 MiB. */
    keepBytes?: number;
}
/** A request that ran past its deadline and was stopped. */
export declare class SearchTimeoutError extends Error {
    readonly name = "SearchTimeoutError";
}
/** Failure reported by the worker; `name` is the engine's error class name. */
export declare class SearchFailure extends Error {
    readonly name: string;
    constructor(name: string, message: string);
}
export declare class SearchClient {
    readonly timeoutMs: number;
    private readonly sandboxUrl;
    private readonly bootTimeoutMs;
    private readonly keepBytes;
    private frame;
    private worker;
    private queue;
    private nextId;
    private disposed;
    /** Set once the frame could not start; requests then run in the page. */
    private inPage;
    /** Workers replaced after a deadline (diagnostics, tests). */
    restarts: number;
    constructor(options?: SearchClientOptions);
    grep(req: GrepRequest, timeoutMs?: number): Promise<GrepResult>;
    find(req: FindRequest, timeoutMs?: number): Promise<FindResult>;
    /** Starts the frame and a worker ahead of the first request (optional). */
    warm(): Promise<void>;
    dispose(): void;
    private enqueue;
    private request;
    /**
     * Sends the worker the contents it does not hold yet, in batches with a turn of
     * the event loop between them, and returns the request naming files only.
     */
    private ship;
    /** Makes the worker forget the least recently used contents above the cap. */
    private trim;
    private ensureWorker;
    /** Closes our end first (a dying worker's late reply reaches nobody), then terminates it. */
    private stopWorker;
}
