import type { ToolContext, ToolResult, ToolSpec } from "./types.js";
/** Most matching lines returned by one grep. */
export declare const GREP_MAX_MATCHES = 200;
/** Each matching line is cut to this many characters. */
export declare const GREP_MAX_LINE_CHARS = 300;
export declare const grepSpec: ToolSpec;
/** `grep {pattern, path="/", ignore_case=false}`. */
export declare function grep(args: unknown, { vfs, search }: ToolContext): Promise<ToolResult>;
