// Typed host tools: a tool's parameters are either a plain JSON Schema (its
// argument type inferred with json-schema-to-ts `FromSchema`) or any Standard
// Schema (zod 4, valibot, ArkType…; `@standard-schema/spec`). Either way the
// model is offered a JSON Schema, and the arguments of each call are validated in
// the browser before the tool runs; a wrong argument becomes a tool error that
// names the field, so the model can correct its next call.
//
// The SDK does not bundle any schema library: a Standard Schema brings its own
// `~standard.validate`, and its JSON Schema comes from the Standard JSON Schema
// extension (`~standard.jsonSchema.input`, implemented by zod 4) or from the
// `jsonSchema` the integrator passes. Plain JSON Schemas are checked with
// @cfworker/json-schema (no code generation, so it runs under a strict CSP),
// loaded on the first call that needs it.

import type { StandardJSONSchemaV1, StandardSchemaV1 } from "@standard-schema/spec";
import type { Validator } from "@cfworker/json-schema";
import type { FromSchema, JSONSchema as TypedJSONSchema } from "json-schema-to-ts";
import type { JsonSchema } from "./types.js";
import type { Rtc } from "../protocol/types.js";
import type { ToolState } from "../agent/toolstate.js";

/** What a host tool's `parameters` may be: a JSON Schema object or a Standard Schema. */
export type ToolParameters = TypedJSONSchema | StandardSchemaV1;

/**
 * The argument type of a tool's `execute`: the output type of a Standard Schema,
 * `FromSchema` of a literal JSON Schema, `unknown` for a schema known only at run
 * time.
 */
export type ToolArgs<P> = P extends StandardSchemaV1
  ? StandardSchemaV1.InferOutput<P>
  : P extends Record<string, unknown> | boolean
    ? unknown extends P
      ? unknown
      : P extends TypedJSONSchema
        ? FromSchema<P>
        : unknown
    : unknown;

/**
 * Whether a call needs the person's yes: always, never, or decided from its
 * arguments. (The function is a method's type, so a tool typed by its schema
 * still fits a list of tools of any schema, `AnyHostTool`.)
 */
export type NeedsApproval<Args> = boolean | { decide(args: Args): boolean | Promise<boolean> }["decide"];

/** What a host tool's `execute` gets besides its arguments. */
export interface HostToolCall {
  /** The RTC id (absent for a call from a script or a direct `execute`). */
  rtcId?: string;
}

/**
 * What a host tool's `render` shows: one call as it stands. `args` are the
 * arguments the model sent (not yet checked against the schema while the call
 * is `input-streaming` or awaiting approval); `output` is what `execute`
 * returned, once `done`; `error` why it failed or was denied.
 */
export interface ToolView<Args = unknown, R = unknown> {
  callId: string;
  state: ToolState;
  args: Partial<Args> | undefined;
  output?: R;
  error?: string;
}

/**
 * A host site's own tool. `Args` is inferred from `parameters`; `N` and `R`
 * (its name and what `execute` returns) are kept by `defineTool`, for typed
 * RTCs and tool parts (`InferToolTypes`).
 */
export interface HostToolDefinition<P = ToolParameters, Args = ToolArgs<P>, N extends string = string, R = unknown> {
  name: N;
  description: string;
  /** A JSON Schema of the arguments, or a Standard Schema (zod 4, valibot, …). */
  parameters: P;
  /**
   * The JSON Schema the model is offered, for a Standard Schema that cannot
   * convert itself (one without `~standard.jsonSchema`, e.g. valibot: pass
   * `toJsonSchema(schema)` of @valibot/to-json-schema). Ignored for a JSON Schema.
   */
  jsonSchema?: JsonSchema;
  /**
   * Runs a call with validated arguments. Return a string (given to the model as
   * is) or JSON data (serialised). A thrown error becomes a tool error.
   */
  execute?(args: Args, call: HostToolCall): R;
  /** The earlier name of `execute`; one of the two is required. */
  handler?(args: Args, call: HostToolCall): R;
  /**
   * Whether a call asks the person first. Omitted or `true`: as the work mode says
   * for host tools (asks in manual and edit). `false`: never asks (a tool without
   * effects). A function: called with the validated arguments before the call
   * runs; `true` asks. Plan mode refuses host tools and bypass never asks,
   * whatever this says.
   */
  needsApproval?: NeedsApproval<Args>;
  /**
   * Shows a call of this tool in the chat's tool card, above its arguments: a
   * DOM node or text, built again each time the call changes (called, asked
   * about, running, done). The card's own parts stay. A render that throws
   * shows its error in the card instead; the chat goes on.
   */
  render?(view: ToolView<Args, Awaited<R>>): Node | string | null | undefined;
}

/**
 * A host tool whatever its argument type: what a list of tools of different
 * schemas holds (`AgentOptions.tools`). Each is typed where it is written, by
 * `defineTool` or by `createAgent({tools})`; written against this type, its
 * functions get arguments with no fields, so nothing reads a field unchecked.
 */
export type AnyHostTool = HostToolDefinition<ToolParameters, Record<never, never>>;

/** The tools of a list, each typed by its own `parameters` (`createAgent({tools})`). */
export type HostTools<T extends readonly ToolParameters[]> = { [K in keyof T]: HostToolDefinition<T[K]> };

/**
 * Types a host tool where it is written: `execute` and `needsApproval` get the
 * arguments its `parameters` describe. Use it for tools kept in a variable or
 * passed through `element.options`; it keeps the tool's name and result type
 * for `InferToolTypes`.
 */
export function defineTool<const P extends ToolParameters, const N extends string, R>(
  def: HostToolDefinition<P, ToolArgs<P>, N, R>,
): HostToolDefinition<P, ToolArgs<P>, N, R> {
  return def;
}

/** What typed RTCs and tool parts know of each tool, by name: its arguments and its result. */
export type ToolTypes = { [name: string]: { input: unknown; output: unknown } };

/**
 * The tool types of host tools made with `defineTool` (`typeof tools`): by
 * name, the arguments of its schema and what its `execute` returns, awaited.
 * The RTC's output is that value as JSON carries it (a string as it is, other
 * data as JSON: a `Date` arrives as its ISO string); a result whose JSON is
 * longer than a result may be fails the call instead of arriving cut.
 */
export type InferToolTypes<T extends readonly { name: string; parameters: unknown }[]> = {
  [D in T[number] as D["name"]]: {
    input: ToolArgs<D["parameters"]>;
    output: D extends { execute?: (...args: never[]) => infer R } ? Awaited<R> : unknown;
  };
};

/** The names of the built-in tools, which a typed tool map leaves untyped. */
export type BuiltinToolName = "ls" | "read" | "write" | "edit" | "grep" | "find" | "askUser" | "script";

/** A call of a tool a typed tool map does not describe: a built-in one, or an MCP server's (`<server>__<tool>`). */
export type OtherToolName = BuiltinToolName | `${string}__${string}`;

/**
 * An RTC typed by a tool map (`InferToolTypes`): comparing `tool_name` with a
 * tool's name narrows `arguments` and `output` to that tool's. Calls of tools
 * the map does not describe (built-in ones, MCP servers') stay `unknown`.
 * Without a map (the default), the plain `Rtc`.
 */
export type RtcOf<TT extends ToolTypes = ToolTypes> = string extends keyof TT
  ? Rtc
  :
      | {
          [K in keyof TT & string]: Omit<Rtc, "tool_name" | "arguments" | "output"> & {
            tool_name: K;
            arguments: TT[K]["input"];
            output?: TT[K]["output"];
          };
        }[keyof TT & string]
      | (Omit<Rtc, "tool_name"> & { tool_name: OtherToolName });

/** The result of checking a call's arguments. */
export type ArgsCheck = { ok: true; value: unknown } | { ok: false; error: string };

/** A host tool with its schema resolved for the model and its validator. */
export interface CompiledParameters {
  /** The JSON Schema offered to the model. */
  jsonSchema: JsonSchema;
  /** Validates (and, for a Standard Schema, parses) one call's arguments. */
  check: (args: unknown) => Promise<ArgsCheck>;
}

const MAX_ISSUES = 8;

/** True for an object with a Standard Schema `~standard.validate`. */
export function isStandardSchema(p: unknown): p is StandardSchemaV1 {
  const std = (p as { "~standard"?: { validate?: unknown } } | null)?.["~standard"];
  return typeof p === "object" && p !== null && typeof std === "object" && std !== null && typeof std.validate === "function";
}

/**
 * Resolves a tool's parameters: the JSON Schema for the model and the check of
 * each call. Throws a TypeError when no JSON Schema can be had.
 */
export function compileParameters(tool: string, parameters: unknown, jsonSchema?: JsonSchema): CompiledParameters {
  if (isStandardSchema(parameters)) {
    const schema = jsonSchema ?? standardJsonSchema(tool, parameters);
    const std = parameters["~standard"];
    return {
      jsonSchema: schema,
      check: async (args) => {
        let result: StandardSchemaV1.Result<unknown>;
        try {
          result = await std.validate(args ?? {});
        } catch (err) {
          return { ok: false, error: `Invalid arguments for ${tool}: the schema could not check them (${(err as Error)?.message ?? String(err)})` };
        }
        if (!result.issues) return { ok: true, value: result.value };
        return { ok: false, error: describeIssues(tool, result.issues.map((i) => ({ path: fieldPath(i.path), message: i.message }))) };
      },
    };
  }
  if (parameters === undefined || parameters === null) parameters = { type: "object", properties: {} };
  if (typeof parameters !== "object" || Array.isArray(parameters)) {
    throw new TypeError(`tool ${tool}: parameters must be a JSON Schema object or a Standard Schema`);
  }
  const schema = parameters as JsonSchema;
  // The validator loads on the first call of a plain-schema tool (a chunk of its
  // own): pages with only Standard Schema tools, or none, never load it.
  let validator: Promise<Validator> | null = null;
  return {
    jsonSchema: schema,
    check: async (args) => {
      const value = args ?? {};
      validator ??= import("@cfworker/json-schema").then((m) => new m.Validator(schema as never, "2020-12", false));
      let v: Validator;
      try {
        v = await validator;
      } catch (err) {
        validator = null;
        return { ok: false, error: `${tool} cannot be called: its parameters are not a usable JSON Schema (${(err as Error)?.message ?? String(err)})` };
      }
      const res = v.validate(value);
      if (res.valid) return { ok: true, value };
      return { ok: false, error: describeIssues(tool, leafErrors(res.errors)) };
    },
  };
}

/** The JSON Schema of a Standard Schema's input, from its own converter. */
function standardJsonSchema(tool: string, schema: StandardSchemaV1): JsonSchema {
  const conv = (schema as unknown as { "~standard": Partial<StandardJSONSchemaV1.Props> })["~standard"].jsonSchema;
  if (!conv || typeof conv.input !== "function") {
    throw new TypeError(
      `tool ${tool}: this ${schema["~standard"].vendor} schema cannot convert itself to JSON Schema; pass the tool's jsonSchema (the library's converter gives it)`,
    );
  }
  const out = { ...conv.input({ target: "draft-2020-12" }) };
  delete out.$schema; // the model needs the shape, not the dialect
  return out;
}

interface Issue {
  path: string;
  message: string;
}

/** "a.b[2]" from a Standard Schema issue path; "" for the arguments as a whole. */
function fieldPath(path: ReadonlyArray<PropertyKey | StandardSchemaV1.PathSegment> | undefined): string {
  let out = "";
  for (const seg of path ?? []) {
    const key = typeof seg === "object" && seg !== null ? seg.key : seg;
    if (typeof key === "number") out += `[${key}]`;
    else out += (out ? "." : "") + String(key);
  }
  return out;
}

/** "a.b[2]" from a JSON pointer fragment ("#/a/b/2"). */
function pointerPath(loc: string): string {
  const parts = loc.replace(/^#\/?/, "").split("/").filter((p) => p !== "");
  let out = "";
  for (const raw of parts) {
    const p = decodeURIComponent(raw).replace(/~1/g, "/").replace(/~0/g, "~");
    if (/^\d+$/.test(p)) out += `[${p}]`;
    else out += (out ? "." : "") + p;
  }
  return out;
}

// Keywords whose error only says that something inside failed; the inner error
// names the field.
const WRAPPERS = new Set(["properties", "items", "prefixItems", "additionalItems", "patternProperties", "unevaluatedProperties", "unevaluatedItems", "$ref", "allOf", "dependentSchemas", "contains"]);

/** The errors that name a field, from @cfworker/json-schema's list. */
function leafErrors(errors: { instanceLocation: string; keyword: string; error: string }[]): Issue[] {
  const issues: Issue[] = [];
  for (const e of errors) {
    if (WRAPPERS.has(e.keyword) && errors.length > 1) continue;
    const at = pointerPath(e.instanceLocation);
    if (e.keyword === "required") {
      const m = /property "([^"]*)"/.exec(e.error);
      issues.push({ path: m ? (at ? `${at}.${m[1]}` : m[1]!) : at, message: "is required" });
    } else if (e.keyword === "additionalProperties") {
      const m = /Property "([^"]*)"/.exec(e.error);
      issues.push({ path: m ? (at ? `${at}.${m[1]}` : m[1]!) : at, message: "is not an allowed property" });
    } else if (e.keyword === "false") {
      // the inner half of an additionalProperties error, already reported
      continue;
    } else issues.push({ path: at, message: e.error });
  }
  return issues;
}

/** One message for the model: the tool, each field and what is wrong with it. */
function describeIssues(tool: string, issues: Issue[]): string {
  const lines = issues.slice(0, MAX_ISSUES).map((i) => `- ${i.path ? `"${i.path}"` : "arguments"}: ${i.message}`);
  if (issues.length > MAX_ISSUES) lines.push(`- and ${issues.length - MAX_ISSUES} more`);
  if (lines.length === 0) lines.push("- arguments: do not match the tool's schema");
  return `Invalid arguments for ${tool}; correct these fields and call it again:\n${lines.join("\n")}`;
}
