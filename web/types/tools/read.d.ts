import type { VirtualFS } from "../vfs/index.js";
import type { ToolResult, ToolSpec } from "./types.js";
/** Default number of lines returned by one read. */
export declare const READ_DEFAULT_LIMIT = 2000;
/** Longer lines are cut; a minified file would otherwise blow the result budget. */
export declare const READ_MAX_LINE_CHARS = 2000;
/** Stop adding lines once the output reaches this many characters. */
export declare const READ_MAX_OUTPUT_CHARS = 200000;
export declare const readSpec: ToolSpec;
/** `read {path, offset=1, limit=2000}`. */
export declare function read(args: unknown, vfs: VirtualFS): Promise<ToolResult>;
/** Lines of a text; a final newline ends the last line rather than starting an empty one. */
export declare function splitLines(content: string): string[];
