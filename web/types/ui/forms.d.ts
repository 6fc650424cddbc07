import type { Prompt, PromptAnswer } from "../executor/prompts.js";
export declare function promptForm(p: Prompt, answer: (a: PromptAnswer) => void): HTMLElement;
