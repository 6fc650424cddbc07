import type { ToolContext, ToolResult, ToolSpec } from "./types.js";
/** Most paths returned by one find. */
export declare const FIND_MAX_RESULTS = 500;
export declare const findSpec: ToolSpec;
/** `find {pattern, path="/"}`. */
export declare function find(args: unknown, { vfs, search }: ToolContext): Promise<ToolResult>;
