import type { VirtualFS } from "../vfs/index.js";
import type { ToolResult, ToolSpec } from "./types.js";
export declare const writeSpec: ToolSpec;
/** `write {path, content}`. */
export declare function write(args: unknown, vfs: VirtualFS): Promise<ToolResult>;
