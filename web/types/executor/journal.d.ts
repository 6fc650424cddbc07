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
export type OutboxEntry = {
    rtc_id: string;
    client_id: string;
    kind: "result";
    ok: true;
    output: unknown;
    created_at: number;
} | {
    rtc_id: string;
    client_id: string;
    kind: "result";
    ok: false;
    error: string;
    created_at: number;
} | {
    rtc_id: string;
    client_id: string;
    kind: "reject";
    reason: string;
    created_at: number;
};
/** What an outcome looks like before it gets its client id. */
export type Outcome = {
    kind: "result";
    ok: true;
    output: unknown;
} | {
    kind: "result";
    ok: false;
    error: string;
} | {
    kind: "reject";
    reason: string;
};
export declare const INTERRUPTED = "interrupted: the page was reloaded while the tool ran; it was not run again";
export interface RtcRef {
    id: string;
    session_id: string;
    tool_name: string;
}
export declare class Journal {
    private readonly db;
    constructor(db: IDBDatabase);
    get(rtcId: string): Promise<{
        journal?: JournalEntry;
        outbox?: OutboxEntry;
    }>;
    /** Records that the user is being asked about a call (no side effect yet). */
    prompting(rtc: RtcRef, tab: string): Promise<boolean>;
    /**
     * Claims the call for execution: true only if no tab started or finished it.
     * Must succeed before the tool runs.
     */
    executing(rtc: RtcRef, tab: string): Promise<boolean>;
    /**
     * Ends a call with an outcome: journal "finished" and the outbox entry in one
     * transaction. Refused (false) when the call already has an outcome.
     */
    finish(rtc: RtcRef, tab: string, outcome: Outcome): Promise<OutboxEntry | null>;
    /** Marks a call as done without a result to send (it ended on the server first). */
    close(rtc: RtcRef, tab: string): Promise<void>;
    /** The server acknowledged the outcome: drop it from the outbox. */
    acknowledge(rtcId: string): Promise<void>;
    /** Replaces an outbox entry's outcome (e.g. a result too large to submit), keeping its client id. */
    replace(entry: OutboxEntry): Promise<void>;
    outbox(): Promise<OutboxEntry[]>;
    entries(): Promise<JournalEntry[]>;
    /** Forgets acknowledged calls older than `maxAgeMs` (their RTCs are long terminal). */
    prune(maxAgeMs: number): Promise<number>;
    private claim;
}
