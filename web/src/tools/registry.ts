import { ELICITATION } from "../executor/elicit.js";
import { scriptSpec, scriptTool } from "../script/tool.js";
import type { VirtualFS } from "../vfs/index.js";
import { ArgumentError, guard } from "./args.js";
import { askUserSpec } from "./ask-user.js";
import { edit, editSpec } from "./edit.js";
import { find, findSpec } from "./find.js";
import { grep, grepSpec } from "./grep.js";
import { ls, lsSpec } from "./ls.js";
import { read, readSpec } from "./read.js";
import { compileParameters, type HostToolDefinition, type ToolArgs, type ToolParameters, type ToolView } from "./typed.js";
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
 * Maps tool names to their spec and executor. The specs (`list()`) are what the
 * SDK sends to the server; `execute` is what runs an RTC. Built-ins cannot be
 * replaced by host tools.
 */
export type { HostToolDefinition };

/** A host tool's own view of a call (its `render`). */
type Render = (view: ToolView) => Node | string | null | undefined;

export class ToolRegistry {
  private readonly tools = new Map<string, ToolDefinition>();
  private readonly hostCalls = new Map<string, (args: unknown, ctx: { rtcId?: string }) => Promise<unknown>>();
  private readonly renders = new Map<string, Render>();

  constructor(tools: readonly ToolDefinition[] = BUILTIN_TOOLS) {
    for (const t of tools) this.tools.set(t.name, t);
  }

  /**
   * Adds a host tool (kind "host"). Its arguments are validated against its
   * schema before `execute` runs; a wrong argument is reported to the model as
   * a tool error that names the field.
   */
  registerHostTool<const P extends ToolParameters = ToolParameters, R = unknown>(def: HostToolDefinition<P, ToolArgs<P>, string, R>): void {
    if (!TOOL_NAME.test(def.name)) throw new TypeError(`invalid tool name ${JSON.stringify(def.name)}`);
    if (BUILTIN_TOOLS.some((t) => t.name === def.name)) throw new TypeError(`${def.name} is a built-in tool and cannot be replaced`);
    if (def.name === ELICITATION) throw new TypeError(`${def.name} is the name of MCP servers' questions, which the page answers itself`);
    // The server names its MCP tools "<server>__<tool>" and refuses host tools named so.
    if (def.name.includes("__")) throw new TypeError(`invalid tool name ${JSON.stringify(def.name)}: "__" is reserved for the server's MCP tools (<server>__<tool>)`);
    const run = (def.execute ?? def.handler) as ((args: unknown, call: { rtcId?: string }) => unknown) | undefined;
    if (typeof run !== "function") throw new TypeError(`tool ${def.name} needs an execute function`);
    const na = def.needsApproval as boolean | ((args: unknown) => boolean | Promise<boolean>) | undefined;
    if (na !== undefined && typeof na !== "boolean" && typeof na !== "function") throw new TypeError(`tool ${def.name}: needsApproval must be true, false or a function`);
    if (def.render !== undefined && typeof def.render !== "function") throw new TypeError(`tool ${def.name}: render must be a function`);
    const compiled = compileParameters(def.name, def.parameters, def.jsonSchema);
    const call = async (args: unknown, ctx: { rtcId?: string }): Promise<unknown> => {
      const checked = await compiled.check(args);
      if (!checked.ok) throw new ArgumentError(checked.error);
      return run(checked.value, ctx.rtcId ? { rtcId: ctx.rtcId } : {});
    };
    this.hostCalls.set(def.name, call);
    if (def.render) this.renders.set(def.name, def.render as Render);
    else this.renders.delete(def.name);
    this.tools.set(def.name, {
      name: def.name,
      description: def.description,
      parameters: compiled.jsonSchema,
      kind: "host",
      ...(na === undefined ? {} : { approval: typeof na === "function" ? "arguments" : na ? "always" : "never" }),
      validate: compiled.check,
      ...(typeof na === "function" ? { needsApproval: async (args: unknown) => (await na(args)) === true } : {}),
      // A string is the result as is; other data goes as JSON (`value`, its JSON text as `output`).
      execute: async (args, ctx) => {
        let text = true;
        const r = await guard(def.name, async () => {
          const value = await call(args, ctx);
          if (typeof value === "string") return value;
          text = false;
          return JSON.stringify(value) ?? "null";
        });
        return r.ok && !text ? { ...r, value: JSON.parse(r.output) as unknown } : r;
      },
    });
  }

  /**
   * Calls a host tool from a script (`rtcAgent.call`): the arguments are
   * validated as for a model's call; a wrong one throws with the same message.
   */
  callHost(name: string, args: unknown): Promise<unknown> {
    const call = this.hostCalls.get(name);
    if (!call) return Promise.reject(new Error(`no host tool ${JSON.stringify(name)}`));
    return call(args, {});
  }

  /**
   * A host tool's own view of one call (its `render`) as a node, or null when
   * it has none or shows nothing. A render that throws, or returns what is
   * neither a node nor text, shows why instead.
   */
  view(name: string, view: ToolView): Node | null {
    const render = this.renders.get(name);
    if (!render) return null;
    try {
      const out: unknown = render(view);
      if (out === null || out === undefined) return null;
      if (typeof out === "string") return document.createTextNode(out);
      if (out instanceof Node) return out;
      throw new TypeError(`render returned ${typeof out}, not a DOM node or text`);
    } catch (err) {
      const note = document.createElement("span");
      note.className = "view-error";
      note.textContent = `The tool's view failed: ${err instanceof Error ? err.message : String(err)}`;
      return note;
    }
  }

  unregister(name: string): boolean {
    if (BUILTIN_TOOLS.some((t) => t.name === name)) return false;
    this.hostCalls.delete(name);
    this.renders.delete(name);
    return this.tools.delete(name);
  }

  get(name: string): ToolDefinition | undefined {
    return this.tools.get(name);
  }

  /** Specs of every tool, without executors: the `tools` sent to the server. */
  list(): ToolSpec[] {
    return [...this.tools.values()].map(({ name, description, parameters, kind, approval }) => ({ name, description, parameters, kind, ...(approval ? { approval } : {}) }));
  }

  /** Runs a tool call; unknown tools and UI-only tools give `{ok: false}`. */
  async execute(name: string, args: unknown, ctx: ToolContext): Promise<ToolResult> {
    const tool = this.tools.get(name);
    if (!tool) return { ok: false, error: `unknown tool ${JSON.stringify(name)}; available: ${[...this.tools.keys()].join(", ")}` };
    if (!tool.execute) return { ok: false, error: `${name} is answered by the user interface, not executed as code` };
    return tool.execute(args, ctx);
  }
}
