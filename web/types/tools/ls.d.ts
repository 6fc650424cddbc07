import type { VirtualFS } from "../vfs/index.js";
import type { ToolResult, ToolSpec } from "./types.js";
/** Most entries listed; a directory with more says so and how to narrow down. */
export declare const LS_MAX_ENTRIES = 1000;
export declare const lsSpec: ToolSpec;
/** `ls {path="/"}`. */
export declare function ls(args: unknown, vfs: VirtualFS): Promise<ToolResult>;
