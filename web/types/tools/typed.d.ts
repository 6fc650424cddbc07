import type { StandardSchemaV1 } from "@standard-schema/spec";
import type { FromSchema, JSONSchema as TypedJSONSchema } from "json-schema-to-ts";
import type { JsonSchema } from "./types.js";
/** What a host tool's `parameters` may be: a JSON Schema object or a Standard Schema. */
export type ToolParameters = TypedJSONSchema | StandardSchemaV1;
/**
 * The argument type of a tool's `execute`: the output type of a Standard Schema,
 * `FromSchema` of a literal JSON Schema, `unknown` for a schema known only at run
 * time.
 */
export type ToolArgs<P> = P extends StandardSchemaV1 ? StandardSchemaV1.InferOutput<P> : P extends Record<string, unknown> | boolean ? unknown extends P ? unknown : P extends TypedJSONSchema ? FromSchema<P> : unknown : unknown;
/** Whether a call needs the person's yes: always, never, or decided from its arguments. */
export type NeedsApproval<Args> = boolean | ((args: Args) => boolean | Promise<boolean>);
/** What a host tool's `execute` gets besides its arguments. */
export interface HostToolCall {
    /** The RTC id (absent for a call from a script or a direct `execute`). */
    rtcId?: string;
}
/** A host site's own tool. `Args` is inferred from `parameters`. */
export interface HostToolDefinition<P = ToolParameters, Args = ToolArgs<P>> {
    name: string;
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
    execute?: (args: Args, call: HostToolCall) => unknown;
    /** The earlier name of `execute`; one of the two is required. */
    handler?: (args: Args, call: HostToolCall) => unknown;
    /**
     * Whether a call asks the person first. Omitted or `true`: as the work mode says
     * for host tools (asks in manual and edit). `false`: never asks (a tool without
     * effects). A function: called with the validated arguments before the call
     * runs; `true` asks. Plan mode refuses host tools and bypass never asks,
     * whatever this says.
     */
    needsApproval?: NeedsApproval<Args>;
}
/** The result of checking a call's arguments. */
export type ArgsCheck = {
    ok: true;
    value: unknown;
} | {
    ok: false;
    error: string;
};
/** A host tool with its schema resolved for the model and its validator. */
export interface CompiledParameters {
    /** The JSON Schema offered to the model. */
    jsonSchema: JsonSchema;
    /** Validates (and, for a Standard Schema, parses) one call's arguments. */
    check: (args: unknown) => Promise<ArgsCheck>;
}
/** True for an object with a Standard Schema `~standard.validate`. */
export declare function isStandardSchema(p: unknown): p is StandardSchemaV1;
/**
 * Resolves a tool's parameters: the JSON Schema for the model and the check of
 * each call. Throws a TypeError when no JSON Schema can be had.
 */
export declare function compileParameters(tool: string, parameters: unknown, jsonSchema?: JsonSchema): CompiledParameters;
