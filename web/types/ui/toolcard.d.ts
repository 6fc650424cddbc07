import type { Prompt } from "../executor/prompts.js";
import type { Rtc, ToolCall } from "../protocol/types.js";
export declare function toolCard(call: ToolCall, rtc: Rtc | undefined, form: HTMLElement | null): HTMLElement;
/** A stable key: the card is rebuilt only when it changes. */
export declare function toolKey(call: ToolCall, rtc: Rtc | undefined, prompt: Prompt | undefined): string;
/**
 * A call's arguments, readable: a `script` call's code as a highlighted code
 * block; for other objects one row per argument, strings as written (not as
 * escaped JSON), other values as indented JSON, long values collapsed. Bidi and
 * zero-width characters are escaped everywhere, code included: what the person
 * approves reads as it runs.
 */
export declare function argumentsView(tool: string, args: unknown): HTMLElement;
/** One line that says what a call does, e.g. `/notes/todo.md` or `**\/*.md in /`. */
export declare function summarize(tool: string, args: unknown): string;
