import type { ToolContext, ToolResult, ToolSpec } from "../tools/types.js";
export declare const scriptSpec: ToolSpec;
/** `script {action: "eval"|"run"|"save", code?, name?, params?}`. */
export declare function scriptTool(args: unknown, ctx: ToolContext): Promise<ToolResult>;
