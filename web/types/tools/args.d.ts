import type { ToolResult } from "./types.js";
/** A failure whose message is reported to the model verbatim by {@link guard}. */
export declare class ToolFailure extends Error {
    readonly name: string;
}
/** Bad arguments; thrown by the helpers below. */
export declare class ArgumentError extends ToolFailure {
    readonly name = "ArgumentError";
}
export type Args = Record<string, unknown>;
/** The arguments object; `undefined`/`null` count as `{}`. */
export declare function argsObject(tool: string, args: unknown): Args;
export declare function requiredString(tool: string, a: Args, key: string, opts?: {
    nonEmpty?: boolean;
}): string;
export declare function optionalString(tool: string, a: Args, key: string, def: string): string;
export declare function optionalInt(tool: string, a: Args, key: string, def: number, min: number): number;
export declare function optionalBool(tool: string, a: Args, key: string, def: boolean): boolean;
export declare function optionalObject(tool: string, a: Args, key: string): Args | undefined;
/**
 * Runs a tool body and converts every thrown error into a model-readable
 * failure, so no tool can reject and leave its call without a result.
 */
export declare function guard(tool: string, body: () => Promise<string>): Promise<ToolResult>;
/** Cuts a string to `max` characters, saying how much was cut. */
export declare function clip(s: string, max: number): string;
