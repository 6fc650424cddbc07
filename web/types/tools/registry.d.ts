import { type HostToolDefinition, type ToolArgs, type ToolParameters } from "./typed.js";
import type { ToolContext, ToolDefinition, ToolResult, ToolSpec } from "./types.js";
/** The eight built-in tools of PROTOCOL.md, in the order they are offered. */
export declare const BUILTIN_TOOLS: readonly ToolDefinition[];
/**
 * Maps tool names to their spec and executor. The specs (`list()`) are what the
 * SDK sends to the server; `execute` is what runs an RTC. Built-ins cannot be
 * replaced by host tools.
 */
export type { HostToolDefinition };
export declare class ToolRegistry {
    private readonly tools;
    private readonly hostCalls;
    constructor(tools?: readonly ToolDefinition[]);
    /**
     * Adds a host tool (kind "host"). Its arguments are validated against its
     * schema before `execute` runs; a wrong argument is reported to the model as
     * a tool error that names the field.
     */
    registerHostTool<const P extends ToolParameters = ToolParameters>(def: HostToolDefinition<P, ToolArgs<P>>): void;
    /**
     * Calls a host tool from a script (`rtcAgent.call`): the arguments are
     * validated as for a model's call; a wrong one throws with the same message.
     */
    callHost(name: string, args: unknown): Promise<unknown>;
    unregister(name: string): boolean;
    get(name: string): ToolDefinition | undefined;
    /** Specs of every tool, without executors: the `tools` sent to the server. */
    list(): ToolSpec[];
    /** Runs a tool call; unknown tools and UI-only tools give `{ok: false}`. */
    execute(name: string, args: unknown, ctx: ToolContext): Promise<ToolResult>;
}
