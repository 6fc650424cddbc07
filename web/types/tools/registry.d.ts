import type { ToolContext, ToolDefinition, ToolResult, ToolSpec } from "./types.js";
/** The eight built-in tools of PROTOCOL.md, in the order they are offered. */
export declare const BUILTIN_TOOLS: readonly ToolDefinition[];
/** A host site's own tool: its handler gets the parsed arguments. */
export interface HostToolDefinition {
    name: string;
    description: string;
    parameters: ToolSpec["parameters"];
    /** Return a string (given to the model as is) or JSON data (serialised). */
    handler: (args: unknown) => unknown;
}
/**
 * Maps tool names to their spec and executor. The specs (`list()`) are what the
 * SDK sends to the server; `execute` is what runs an RTC. Built-ins cannot be
 * replaced by host tools.
 */
export declare class ToolRegistry {
    private readonly tools;
    constructor(tools?: readonly ToolDefinition[]);
    /** Adds a host tool (kind "host"). */
    registerHostTool(def: HostToolDefinition): void;
    unregister(name: string): boolean;
    get(name: string): ToolDefinition | undefined;
    /** Specs of every tool, without executors: the `tools` sent to the server. */
    list(): ToolSpec[];
    /** Runs a tool call; unknown tools and UI-only tools give `{ok: false}`. */
    execute(name: string, args: unknown, ctx: ToolContext): Promise<ToolResult>;
}
