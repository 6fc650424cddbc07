import { scriptSpec, scriptTool } from "../script/tool.js";
import type { VirtualFS } from "../vfs/index.js";
import { guard } from "./args.js";
import { askUserSpec } from "./ask-user.js";
import { edit, editSpec } from "./edit.js";
import { find, findSpec } from "./find.js";
import { grep, grepSpec } from "./grep.js";
import { ls, lsSpec } from "./ls.js";
import { read, readSpec } from "./read.js";
import type { ToolContext, ToolDefinition, ToolResult, ToolSpec } from "./types.js";
import { write, writeSpec } from "./write.js";

type FsTool = (args: unknown, vfs: VirtualFS) => Promise<ToolResult>;
const fsTool = (spec: ToolSpec, fn: FsTool): ToolDefinition => ({ ...spec, execute: (args, ctx) => fn(args, ctx.vfs) });

/** The eight built-in tools of PROTOCOL.md, in the order they are offered. */
export const BUILTIN_TOOLS: readonly ToolDefinition[] = Object.freeze([
  fsTool(lsSpec, ls),
  fsTool(readSpec, read),
  fsTool(writeSpec, write),
  fsTool(editSpec, edit),
  { ...grepSpec, execute: grep },
  { ...findSpec, execute: find },
  { ...scriptSpec, execute: scriptTool },
  { ...askUserSpec },
]);

const TOOL_NAME = /^[A-Za-z][A-Za-z0-9_-]{0,63}$/;

/**
 * A host site's own tool: its handler gets the parsed arguments, of type `Args`
 * (what `parameters` describes; the model's arguments are passed as they came).
 */
export interface HostToolDefinition<Args = Record<string, unknown>> {
  name: string;
  description: string;
  parameters: ToolSpec["parameters"];
  /**
   * Return a string (given to the model as is) or JSON data (serialised). Declared
   * as a method so a tool with its own `Args` fits a list of tools.
   */
  handler(args: Args): unknown;
}

/**
 * Maps tool names to their spec and executor. The specs (`list()`) are what the
 * SDK sends to the server; `execute` is what runs an RTC. Built-ins cannot be
 * replaced by host tools.
 */
export class ToolRegistry {
  private readonly tools = new Map<string, ToolDefinition>();

  constructor(tools: readonly ToolDefinition[] = BUILTIN_TOOLS) {
    for (const t of tools) this.tools.set(t.name, t);
  }

  /** Adds a host tool (kind "host"). */
  registerHostTool<Args>(def: HostToolDefinition<Args>): void {
    if (!TOOL_NAME.test(def.name)) throw new TypeError(`invalid tool name ${JSON.stringify(def.name)}`);
    if (BUILTIN_TOOLS.some((t) => t.name === def.name)) throw new TypeError(`${def.name} is a built-in tool and cannot be replaced`);
    if (typeof def.handler !== "function") throw new TypeError(`tool ${def.name} needs a handler function`);
    const handler = def.handler;
    this.tools.set(def.name, {
      name: def.name,
      description: def.description,
      parameters: def.parameters,
      kind: "host",
      execute: (args) =>
        guard(def.name, async () => {
          const value = await handler(args as Args);
          return typeof value === "string" ? value : (JSON.stringify(value) ?? "null");
        }),
    });
  }

  unregister(name: string): boolean {
    if (BUILTIN_TOOLS.some((t) => t.name === name)) return false;
    return this.tools.delete(name);
  }

  get(name: string): ToolDefinition | undefined {
    return this.tools.get(name);
  }

  /** Specs of every tool, without executors: the `tools` sent to the server. */
  list(): ToolSpec[] {
    return [...this.tools.values()].map(({ name, description, parameters, kind }) => ({ name, description, parameters, kind }));
  }

  /** Runs a tool call; unknown tools and UI-only tools give `{ok: false}`. */
  async execute(name: string, args: unknown, ctx: ToolContext): Promise<ToolResult> {
    const tool = this.tools.get(name);
    if (!tool) return { ok: false, error: `unknown tool ${JSON.stringify(name)}; available: ${[...this.tools.keys()].join(", ")}` };
    if (!tool.execute) return { ok: false, error: `${name} is answered by the user interface, not executed as code` };
    return tool.execute(args, ctx);
  }
}
