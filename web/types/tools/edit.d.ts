import type { VirtualFS } from "../vfs/index.js";
import type { ToolResult, ToolSpec } from "./types.js";
export declare const editSpec: ToolSpec;
/** `edit {path, old_string, new_string, replace_all=false}`. */
export declare function edit(args: unknown, vfs: VirtualFS): Promise<ToolResult>;
