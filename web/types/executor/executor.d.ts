import { type Rtc } from "../protocol/types.js";
import type { EntityStore } from "../realtime/entities.js";
import type { Call } from "../realtime/topic.js";
import type { ToolContext } from "../tools/types.js";
import type { ToolRegistry } from "../tools/registry.js";
import { Emitter } from "../util/emitter.js";
import { type Journal, type Outcome } from "./journal.js";
import type { Leadership } from "./leader.js";
import { type Outbox } from "./outbox.js";
import type { PromptBoard } from "./prompts.js";
export interface ExecutorDeps {
    journal: Journal;
    outbox: Outbox;
    call: Call;
    store: EntityStore;
    deviceId: string;
    tabId: string;
    tools: ToolRegistry;
    context: () => ToolContext;
    prompts: PromptBoard;
    leadership: Leadership;
}
export interface ExecutorEvents {
    /** A tool body started in this tab. */
    started: Rtc;
    /** A call got its outcome (queued for submission). */
    finished: {
        rtc: Rtc;
        outcome: Outcome;
    };
    /** A call found started-but-unfinished after a reload, reported as failed. */
    interrupted: Rtc;
    error: unknown;
}
export declare class Executor {
    private readonly d;
    readonly events: Emitter<ExecutorEvents>;
    private readonly inFlight;
    private readonly sessionQueues;
    private readonly execQueue;
    private readonly terminalWaiters;
    private readonly offs;
    private stopped;
    constructor(d: ExecutorDeps);
    start(): void;
    stop(): void;
    get isLeader(): boolean;
    /**
     * Re-delivery after a (re)connect, a reload or a reset: resubmit the outbox and
     * take every open call of this device from `v1.rtc.pending`.
     */
    refresh(): Promise<void>;
    private mine;
    private consider;
    private current;
    private process;
    /**
     * A call the server executes (a tool of an MCP server) never runs here. When it
     * needs confirmation the person is asked; an approval is sent with
     * `v1.rtc.approve` (retried while the server cannot be reached), a refusal as
     * `rejected` through the outbox.
     */
    private confirmServerCall;
    /** The server's answer or this page's own matrix, whichever asks. */
    private needsConfirmation;
    private modeOf;
    /**
     * Runs the call; "changed" (nothing run, nothing claimed) when it is a `script
     * run` whose saved code no longer has the approved hash.
     */
    private execute;
    /**
     * The check of calls a running script makes (host tools, changes of protected
     * paths): each asks where a direct call would, as its own prompt on the card of
     * the script's call.
     */
    private authorizer;
    private finish;
    /**
     * Whether the call may run: false when it ended on the server (stopped, timed
     * out). A tool with effects first reports `update_status executing`, retried
     * while the server cannot be reached; a read-only one (kind "read") does not.
     */
    private mayRun;
    /** Asks the person; null when the call ends on the server before an answer. */
    private promptFor;
    /** Resolves when the store shows the RTC terminal. */
    private terminal;
    private ended;
}
