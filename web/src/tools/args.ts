// Argument checks shared by the tools. Messages name the tool, the field, what
// was expected and what arrived, so the model can correct its next call.
// Unknown fields are ignored on purpose: models add harmless extras.

import { VfsError } from "../vfs/index.js";
import { describeType } from "../vfs/path.js";
import type { ToolResult } from "./types.js";

/** A failure whose message is reported to the model verbatim by {@link guard}. */
export class ToolFailure extends Error {
  override readonly name: string = "ToolFailure";
}

/** Bad arguments; thrown by the helpers below. */
export class ArgumentError extends ToolFailure {
  override readonly name = "ArgumentError";
}

export type Args = Record<string, unknown>;

/** The arguments object; `undefined`/`null` count as `{}`. */
export function argsObject(tool: string, args: unknown): Args {
  if (args === undefined || args === null) return {};
  if (typeof args !== "object" || Array.isArray(args)) {
    throw new ArgumentError(`Invalid arguments for ${tool}: expected a JSON object, got ${describeType(args)}`);
  }
  return args as Args;
}

function bad(tool: string, key: string, expected: string, v: unknown): ArgumentError {
  const shown = typeof v === "string" ? JSON.stringify(v.length > 40 ? v.slice(0, 40) + "…" : v) : String(JSON.stringify(v) ?? v);
  return new ArgumentError(`Invalid arguments for ${tool}: "${key}" must be ${expected}, got ${describeType(v)} ${shown}`);
}

export function requiredString(tool: string, a: Args, key: string, opts: { nonEmpty?: boolean } = {}): string {
  const v = a[key];
  if (v === undefined || v === null) throw new ArgumentError(`Invalid arguments for ${tool}: "${key}" is required`);
  if (typeof v !== "string") throw bad(tool, key, "a string", v);
  if (opts.nonEmpty && v === "") throw new ArgumentError(`Invalid arguments for ${tool}: "${key}" must not be empty`);
  return v;
}

export function optionalString(tool: string, a: Args, key: string, def: string): string {
  const v = a[key];
  if (v === undefined || v === null) return def;
  if (typeof v !== "string") throw bad(tool, key, "a string", v);
  return v;
}

export function optionalInt(tool: string, a: Args, key: string, def: number, min: number): number {
  const v = a[key];
  if (v === undefined || v === null) return def;
  if (typeof v !== "number" || !Number.isSafeInteger(v) || v < min) throw bad(tool, key, `an integer >= ${min}`, v);
  return v;
}

export function optionalBool(tool: string, a: Args, key: string, def: boolean): boolean {
  const v = a[key];
  if (v === undefined || v === null) return def;
  if (typeof v !== "boolean") throw bad(tool, key, "true or false", v);
  return v;
}

export function optionalObject(tool: string, a: Args, key: string): Args | undefined {
  const v = a[key];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== "object" || Array.isArray(v)) throw bad(tool, key, "a JSON object", v);
  return v as Args;
}

/**
 * Runs a tool body and converts every thrown error into a model-readable
 * failure, so no tool can reject and leave its call without a result.
 */
export async function guard(tool: string, body: () => Promise<string>): Promise<ToolResult> {
  try {
    return { ok: true, output: await body() };
  } catch (err) {
    if (err instanceof ToolFailure || err instanceof VfsError) return { ok: false, error: err.message };
    const msg = err instanceof Error ? `${err.name}: ${err.message}` : String(err);
    return { ok: false, error: `${tool} failed unexpectedly: ${msg}` };
  }
}

/** Cuts a string to `max` characters, saying how much was cut. */
export function clip(s: string, max: number): string {
  return s.length <= max ? s : `${s.slice(0, max)}… [${s.length - max} more characters]`;
}
