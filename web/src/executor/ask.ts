// askUser: checks the model's questions before showing them, and turns the
// person's answers into the tool output the model reads.

import type { AskAnswer } from "./prompts.js";

export interface AskOption {
  label: string;
  description?: string;
}

export interface AskQuestion {
  question: string;
  header?: string;
  /** 2-4 choices; none (absent or empty) makes a question answered in free text only. */
  options?: AskOption[];
  multiSelect?: boolean;
}

/** The questions of an askUser call, or null when the arguments are not valid. */
export function questionsOf(args: unknown): AskQuestion[] | null {
  return validateQuestions(args) === null ? ((args as { questions: AskQuestion[] }).questions ?? null) : null;
}

/** A message for the model when the arguments are not valid, else null. */
export function validateQuestions(args: unknown): string | null {
  const bad = (why: string) => `Invalid arguments for askUser: ${why}`;
  if (typeof args !== "object" || args === null || Array.isArray(args)) return bad("expected a JSON object with \"questions\"");
  const qs = (args as { questions?: unknown }).questions;
  if (!Array.isArray(qs) || qs.length < 1 || qs.length > 4) return bad('"questions" must be an array of 1-4 questions');
  for (const [i, q] of qs.entries()) {
    const at = `questions[${i}]`;
    if (typeof q !== "object" || q === null) return bad(`${at} must be an object`);
    const { question, options, header, multiSelect } = q as Record<string, unknown>;
    if (typeof question !== "string" || question.trim() === "") return bad(`${at}.question must be a non-empty string`);
    if (header !== undefined && typeof header !== "string") return bad(`${at}.header must be a string`);
    if (multiSelect !== undefined && typeof multiSelect !== "boolean") return bad(`${at}.multiSelect must be a boolean`);
    if (options !== undefined && (!Array.isArray(options) || options.length === 1 || options.length > 4)) {
      return bad(`${at}.options must be an array of 2-4 options, or empty for a free-text answer`);
    }
    for (const [k, o] of (options ?? []).entries()) {
      if (typeof o !== "object" || o === null || typeof (o as AskOption).label !== "string" || (o as AskOption).label.trim() === "") {
        return bad(`${at}.options[${k}].label must be a non-empty string`);
      }
      const d = (o as AskOption).description;
      if (d !== undefined && typeof d !== "string") return bad(`${at}.options[${k}].description must be a string`);
    }
  }
  return null;
}

/** "The user answered:\nQ: …\nA: …" — one pair per question, in order. */
export function formatAnswers(answers: AskAnswer[]): string {
  const lines = ["The user answered:"];
  for (const a of answers) {
    const parts = [...a.selected];
    if (a.other && a.other.trim()) parts.push(`(other) ${a.other.trim()}`);
    lines.push(`Q: ${a.question}`, `A: ${parts.length ? parts.join(", ") : "(no answer)"}`);
  }
  return lines.join("\n");
}
