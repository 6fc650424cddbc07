import type { Call } from "../realtime/topic.js";
import { Emitter } from "../util/emitter.js";
import type { Journal } from "./journal.js";
export interface OutboxEvents {
    /** The server has the outcome (or it can never be delivered: `dropped`). */
    acknowledged: {
        rtcId: string;
        dropped?: string;
    };
    /** One attempt failed; the next one follows after `retryInMs`. */
    retry: {
        rtcId: string;
        attempt: number;
        retryInMs: number;
        error: string;
    };
}
export interface OutboxOptions {
    baseMs?: number;
    capMs?: number;
}
/** Largest output submitted as is; the request limit of the server is 1 MiB. */
export declare const MAX_OUTPUT_CHARS = 900000;
export declare class Outbox {
    private readonly journal;
    private readonly call;
    readonly events: Emitter<OutboxEvents>;
    private readonly attempts;
    private readonly due;
    private readonly inFlight;
    private timer;
    private timerAt;
    private running;
    private readonly baseMs;
    private readonly capMs;
    constructor(journal: Journal, call: Call, opts?: OutboxOptions);
    /** Starts delivering (this tab executes). */
    start(): void;
    stop(): void;
    /** Attempts every due entry now; `all` also those waiting for their backoff. */
    kick(all?: boolean): void;
    private flush;
    /** Wakes the loop after `ms`, unless it is already due to wake earlier. */
    private schedule;
    private attempt;
    private done;
    private failed;
}
/** Bounds an output so the submission fits the server's request limit. */
export declare function fitOutput(output: string): string;
