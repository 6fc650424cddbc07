import type { AskAnswer } from "./prompts.js";
export interface AskOption {
    label: string;
    description?: string;
}
export interface AskQuestion {
    question: string;
    header?: string;
    options: AskOption[];
    multiSelect?: boolean;
}
/** The questions of an askUser call, or null when the arguments are not valid. */
export declare function questionsOf(args: unknown): AskQuestion[] | null;
/** A message for the model when the arguments are not valid, else null. */
export declare function validateQuestions(args: unknown): string | null;
/** "The user answered:\nQ: …\nA: …" — one pair per question, in order. */
export declare function formatAnswers(answers: AskAnswer[]): string;
