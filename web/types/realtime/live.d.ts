import type { Delta, Message } from "../protocol/types.js";
import { Emitter } from "../util/emitter.js";
import type { Call } from "./topic.js";
export interface LiveEvents {
    /** The streaming text of a message changed. */
    text: {
        messageId: string;
        sessionId: string;
        text: string;
    };
}
export interface LiveOptions {
    /** Is this message final (not streaming) in the entity store? */
    isFinal: (messageId: string) => boolean;
    /** A message read by v1.message.get, to merge into the entity store. */
    onMessage?: (m: Message) => void;
    /** How long a streaming message may show no delta before its text is fetched. Default 400 ms. */
    joinDelayMs?: number;
}
export declare class LiveStreams {
    private readonly call;
    private readonly opts;
    readonly events: Emitter<LiveEvents>;
    private readonly streams;
    private readonly sessionOf;
    private readonly timers;
    constructor(call: Call, opts: LiveOptions);
    /** The text streamed so far, or undefined when no delta has been seen. */
    text(messageId: string): string | undefined;
    delta(d: Delta): void;
    /**
     * A streaming message is known (created, or found streaming when a session was
     * loaded). If no delta shows up soon, join the stream with v1.message.get.
     * `immediately` for messages found while loading (their first deltas are long gone).
     */
    watch(m: Message, immediately?: boolean): void;
    /** The message is final: its overlay is no longer needed. */
    finish(messageId: string): void;
    close(): void;
    private applyDelta;
    private fetch;
    private emitText;
}
