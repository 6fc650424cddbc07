import type { Rtc } from "../protocol/types.js";
import type { ScriptPreview } from "../script/pin.js";
import type { ScriptCallAsk } from "./permissions.js";
import { Emitter } from "../util/emitter.js";
export type PromptKind = "confirm" | "ask";
export interface Prompt {
    /** The RTC id; `<RTC id>/call-<n>` for a call a running script makes. */
    id: string;
    kind: PromptKind;
    rtc: Rtc;
    /** `script run`: the saved code the person approves, the only code that will run. */
    script?: ScriptPreview;
    /** A call made from inside the running script of `rtc`. */
    call?: ScriptCallAsk;
    /** Why the person is asked again about the same call. */
    again?: string;
}
/** One answered askUser question. */
export interface AskAnswer {
    question: string;
    /** Labels of the chosen options. */
    selected: string[];
    /** Free text typed as "Other". */
    other?: string;
}
export type PromptAnswer = {
    type: "confirm";
    approved: boolean;
    reason?: string;
} | {
    type: "ask";
    answers: AskAnswer[];
} | {
    type: "dismiss";
    reason?: string;
};
export declare class PromptBoard {
    readonly events: Emitter<{
        change: Prompt[];
    }>;
    private readonly open;
    /** Prompts this tab opened and waits on. */
    private readonly waiting;
    private readonly channel;
    constructor(channelName: string);
    list(): Prompt[];
    get(id: string): Prompt | undefined;
    /** Opens a prompt (executing tab) and resolves with the first answer from any tab. */
    ask(prompt: Prompt): Promise<PromptAnswer>;
    /** Answers a prompt from this tab. */
    answer(id: string, answer: PromptAnswer): void;
    /** Withdraws a prompt (the call ended on the server, or was answered). */
    close(id: string): void;
    dispose(): void;
    private resolve;
    private onWire;
    private post;
    private changed;
}
