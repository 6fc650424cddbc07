// Turning script values into text and wire data inside the worker.

import type { WireError } from "../protocol.js";

/** Renders console arguments roughly like a devtools console would, as one line. */
export function formatLogArgs(args: unknown[], maxChars: number): string {
  const text = args.map(formatValue).join(" ");
  return text.length <= maxChars ? text : `${text.slice(0, maxChars)}… [${text.length - maxChars} more characters]`;
}

function formatValue(v: unknown): string {
  if (typeof v === "string") return v;
  if (v instanceof Error) return `${v.name}: ${v.message}`;
  if (v === undefined || typeof v === "function" || typeof v === "symbol" || typeof v === "bigint") return String(v);
  try {
    return JSON.stringify(v) ?? String(v);
  } catch {
    return String(v); // circular structures and the like
  }
}

/**
 * Flattens anything thrown by a script. Stack frames are kept only for the
 * script's own blob, renumbered to the script's lines (`lineOffset` lines of
 * wrapper precede it), so the model sees "script:3:7" rather than blob URLs.
 */
export function toWireError(err: unknown, scriptUrl: string | null, lineOffset: number): WireError {
  if (!(err instanceof Error)) {
    return { name: "Error", message: `script threw a non-Error value: ${formatValue(err)}` };
  }
  const out: WireError = { name: err.name, message: err.message };
  const code = (err as { code?: unknown }).code;
  if (typeof code === "string") out.code = code;
  if (scriptUrl && typeof err.stack === "string") {
    const frames = err.stack
      .split("\n")
      .filter((l) => l.includes(scriptUrl))
      .map((l) =>
        l.replace(`${scriptUrl}:`, "script:").replace(/script:(\d+)/, (_m, n: string) => `script:${Math.max(1, Number(n) - lineOffset)}`),
      )
      .map((l) => l.trim());
    if (frames.length > 0) out.stack = frames.slice(0, 10).join("\n");
  }
  return out;
}
